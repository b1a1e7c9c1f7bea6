"""The change feed: what the stream hands a consumer, as changes of entries (domain/changes.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from ..changes import EntryChange


class ChangeFeed(Protocol):
    """Decodes the scores table's stream records into changes (data/stream_changes.py, the one decoder)."""

    def entry_changes(self, records: Iterable[Mapping[str, Any]]) -> list[EntryChange]:
        """The entries' changes among these records, in their order (other items' records left out)."""
        ...
