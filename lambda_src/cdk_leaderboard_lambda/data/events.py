"""Events for the game's backend: EventBridge on AWS; locally (no EventBridge) a JSON-lines file and the log."""

from __future__ import annotations

import json
import logging
from typing import Any

import boto3

from ..shared.settings import Settings

logger = logging.getLogger(__name__)


class NotDelivered(Exception):
    """EventBridge refused the event (PutEvents reports it per entry, not as an error)."""


class EventSink:
    """Where a runtime's events go: the settings' EventBridge bus, else their JSON-lines file, else only the log."""

    def __init__(self, settings: Settings, client: Any = None) -> None:
        self._bus = settings.event_bus_name
        self._file = settings.local_events_file
        self._client = client  # made on the first event (only the period closer sends any), then kept

    def put(self, source: str, detail_type: str, detail: dict[str, Any]) -> None:
        body = json.dumps(detail, separators=(",", ":"), default=int)
        if self._bus:
            if self._client is None:
                self._client = boto3.client("events")
            resp = self._client.put_events(
                Entries=[{"Source": source, "DetailType": detail_type, "Detail": body, "EventBusName": self._bus}]
            )
            if resp.get("FailedEntryCount"):
                raise NotDelivered(json.dumps(resp.get("Entries", [])))
            return
        record = {"source": source, "detail-type": detail_type, "detail": json.loads(body)}
        if self._file:
            with open(self._file, "a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
        logger.info(json.dumps({"event": record}))
