"""Reading a board period's hash-chained log (GET .../periods/{period_id}/log) a page at a time; the record format
is domain/hashchain.py's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..domain import cursors
from ..shared import item_keys
from ..shared.errors import BrokenRule

if TYPE_CHECKING:
    from ..domain.boards import BoardConfig
    from ..domain.ports.runtime import Runtime


def page(runtime: Runtime, config: BoardConfig, period_ref: str, limit: int, cursor: str | None) -> dict:
    """A page of a board period's log in seq order (GET .../periods/{period_id}/log): one Query of the store. The
    cursor is bound to the board period and issued afresh with each page (records never change, so an export of
    any length may take as long as it needs, a cursor lifetime per page). It takes the runtime: the log's store,
    the clock and the cursor keys."""
    p = config.resolve_period(period_ref, runtime.clock.now())
    binding = "log\n" + item_keys.leaderboard_id(config.evidence_id, p.period_id)
    after = 0
    if cursor is not None:
        position = cursors.read(runtime, cursor, binding)
        if not position.last_key.isdigit():
            raise BrokenRule(cursors.INVALID)
        after = int(position.last_key)
    records, more = runtime.chain.page(config.evidence_id, p.period_id, after, limit)
    answer: dict[str, Any] = {"records": records}
    if more:
        answer["next_cursor"] = cursors.issue(runtime, binding, str(records[-1]["seq"]), records[-1]["seq"])
    return answer
