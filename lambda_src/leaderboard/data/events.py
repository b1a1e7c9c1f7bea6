"""Events for the game's backend: EventBridge on AWS; locally (no EventBridge) a JSON-lines file and the log."""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from typing import Any

import boto3

from ..settings import get_settings

logger = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _client():
    return boto3.client("events")


class NotDelivered(Exception):
    """EventBridge refused the event (PutEvents reports it per entry, not as an error)."""


def put(source: str, detail_type: str, detail: dict[str, Any]) -> None:
    settings = get_settings()
    body = json.dumps(detail, separators=(",", ":"), default=int)
    if settings.event_bus_name:
        resp = _client().put_events(
            Entries=[
                {"Source": source, "DetailType": detail_type, "Detail": body, "EventBusName": settings.event_bus_name}
            ]
        )
        if resp.get("FailedEntryCount"):
            raise NotDelivered(json.dumps(resp.get("Entries", [])))
        return
    record = {"source": source, "detail-type": detail_type, "detail": json.loads(body)}
    if settings.local_events_file:
        with open(settings.local_events_file, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
    logger.info(json.dumps({"event": record}))
