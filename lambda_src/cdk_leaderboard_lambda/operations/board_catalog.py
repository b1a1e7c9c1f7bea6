"""The boards that exist: built in, declared in the stack's props, or stored in the table; created, listed,
shown and deleted."""

from __future__ import annotations

import base64
import secrets
import time
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..domain import board_validation, boards, cursors, periods, plausibility
from ..domain.boards import BoardConfig
from ..domain.ports import BUSY, EXISTS, FULL, BoardStore
from ..shared import item_keys
from ..shared.clock import iso
from ..shared.errors import BadRequest, Conflict, NotFound
from ..shared.lru import LRU

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime
    from ..shared.settings import Settings

BOARD_CACHE_SECONDS = 30  # how long a function instance trusts a board's config before reading it again
# Configs one instance keeps (docs/SECURITY.md, "Bounded memory"): only stored boards are cached, which max_boards
# caps, but the cap is a prop and a board id is a request's; a config is ~350 B (a few KB with rules): under ~4 MB.
BOARD_CACHE_KEPT = 1024

# What BoardStore's counted writes answer.


class BoardCache:
    """Configs of boards stored in the table, as last read by this function instance (its runtime holds one)."""

    def __init__(self) -> None:
        self.read_at: LRU[str, tuple[float, BoardConfig]] = LRU(BOARD_CACHE_KEPT)

    def get(self, board_id: str) -> BoardConfig | None:
        hit = self.read_at.get(board_id)
        return hit[1] if hit and time.monotonic() - hit[0] < BOARD_CACHE_SECONDS else None

    def put(self, config: BoardConfig) -> None:
        self.read_at.put(config.board_id, (time.monotonic(), config))

    def forget(self, board_id: str) -> None:
        self.read_at.pop(board_id)


def declared_boards(settings: Settings) -> dict[str, BoardConfig]:
    """The built-in board and the boards declared in the stack's props (no table item: nothing to create)."""
    declared = [board_validation.parse_new_board(b, created_at=None) for b in settings.declared_boards]
    return {b.board_id: b for b in [boards.DEFAULT_BOARD, *declared]}


def get_board(runtime: Runtime, board_id: str) -> BoardConfig:
    """A board's config; stored boards are cached for BOARD_CACHE_SECONDS (writes re-check theirs)."""
    if board_id in (builtin := declared_boards(runtime.settings)):
        return builtin[board_id]
    cache = runtime.board_cache
    if (cached := cache.get(board_id)) is not None:
        return cached
    item = runtime.boards.get(board_validation.board_id(board_id))
    if item is None or item.get("status") == "deleting":
        cache.forget(board_id)
        raise NotFound(f"no leaderboard {board_id}")
    config = BoardConfig.from_item(item)
    cache.put(config)
    return config


def evidence_ids(runtime: Runtime) -> list[str]:
    """Every board generation that has evidence served (item_keys.evidence_id), sorted: the live boards' and the
    archived ones' (erasure rewrites the closing summaries of each)."""
    live = {c.evidence_id for c in all_boards(runtime)}
    archived = {item_keys.evidence_id(a["board_id"], a["generation"]) for a in runtime.boards.archived()}
    return sorted(live | archived)


def new_generation() -> str:
    """A board generation's id: 8 characters of [a-z2-7] (40 random bits; item_keys.py, "board generations")."""
    return base64.b32encode(secrets.token_bytes(5)).decode().lower()


def shown(runtime: Runtime, board_id: str) -> BoardConfig:
    """get_board for GET /leaderboards/{board}: a missing board's 404 names its deleted generations whose evidence
    is still served (one Query of the small archive partition; other routes' 404s do not pay it)."""
    try:
        return get_board(runtime, board_id)
    except NotFound as missing:
        raise NotFound(missing.message, _archives_of(runtime, board_id)) from None


def _archives_of(runtime: Runtime, board_id: str) -> dict[str, Any]:
    """What a 404 for a missing board carries: its deleted generations whose evidence is still served."""
    now = iso(runtime.clock.now())
    found = [a for a in runtime.boards.archived(board_id) if a["keep_until"] > now]
    return {"archived": [archive_view(a) for a in found]} if found else {}


def archived(runtime: Runtime, board_id: str) -> list[dict[str, Any]]:
    """The board id's deleted generations' records (expired ones included: check keep_until)."""
    return runtime.boards.archived(board_id)


def archive_view(record: dict[str, Any]) -> dict[str, Any]:
    config = record["config"]
    return {
        "generation": record["generation"],
        "created_at": config.get("created_at"),
        "deleted_at": record["deleted_at"],
        "keep_until": record["keep_until"],
        "periods_url": f"/leaderboards/{config['board_id']}/periods?generation={record['generation']}",
    }


def board_view(config: BoardConfig, now: datetime, *, rules: bool = False) -> dict[str, Any]:
    """The board as its routes show it at `now` (its current periods); its plausibility rules only with `rules`
    (the admin's answers): their thresholds are what a cheater would submit just under."""
    view = config.to_item()
    view["generation"] = config.generation  # which creation of this id (item_keys.py): its evidence's URLs name it
    view["submissions"] = config.submissions  # stored only for client boards; shown for every board
    view.pop("rules", None)
    if rules:
        view["rules"] = plausibility.declared(config.rules)  # {} when none
    if config.per_player_limit is not None:  # the limit in force, a default one included
        view["max_submissions_per_minute"] = config.per_player_limit
    if config.takes_client_submissions:  # runs are for client boards only
        view["max_open_runs"] = config.max_open_runs
    else:
        view.pop("max_open_runs", None)
    view["periods"] = [
        {"period": p.kind, "current": p.period_id, "next_reset": p.next_reset()} for p in config.current_periods(now)
    ]
    return view


def create_board(runtime: Runtime, body: dict[str, Any], now: datetime) -> dict[str, Any]:
    """A new stored board, unless the deployment holds max_boards already (409: delete one, or raise the prop).

    Exact under concurrent creates: the board's put and the count's increment (only below the cap) are one
    transaction. Creates racing on the count item are retried a few times; if every attempt was cancelled, 409
    (nothing stored: retry), as for a submission that meets too many concurrent writes. `now` is its created_at."""
    # A new generation each time: nothing of a deleted board's (entries, logs, summaries, runs) is this board's.
    config = replace(board_validation.parse_new_board(body, created_at=iso(now)), generation=new_generation())
    if config.board_id in declared_boards(runtime.settings):
        raise Conflict(f"leaderboard {config.board_id} already exists")
    cap = runtime.settings.max_boards
    outcome = runtime.boards.put_counted(config.to_item(), cap)
    if outcome == EXISTS:
        raise Conflict(f"leaderboard {config.board_id} already exists")
    if outcome == FULL:
        raise Conflict(
            f"this deployment holds its limit of {cap} boards (max_boards): delete a board first, or raise the "
            "stack's max_boards prop"
        )
    if outcome == BUSY:
        raise Conflict("too many concurrent writes to the boards' count; nothing stored, retry")
    return board_view(config, now, rules=True)


def rules_view(config: BoardConfig) -> dict[str, Any]:
    """A board's plausibility rules, thresholds and actions ({} when none): the admin's review queue shows them."""
    return {"rules": plausibility.declared(config.rules)}


CHANGEABLE = ("rules", "submissions", "max_open_runs")  # what PATCH /leaderboards/{board} changes


def update_board(runtime: Runtime, board_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """Change a stored board's rules (replaced as a whole: {} removes them), who may submit or how many runs a
    player may hold open (runs already open stay open until used, over or ended by a new start). This function
    instance sees the change at once; others within BOARD_CACHE_SECONDS."""
    if not isinstance(body, dict) or not body:
        raise BadRequest(f"give at least one of {', '.join(CHANGEABLE)}")
    unknown = sorted(set(body) - set(CHANGEABLE))
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(unknown)}; a board's {', '.join(CHANGEABLE)} can change")
    if board_id in declared_boards(runtime.settings):
        raise BadRequest(f"{board_id} is built in or declared in the stack: change it in the stack's props instead")
    item = runtime.boards.get(board_validation.board_id(board_id))
    if item is None or item.get("status") == "deleting":
        raise NotFound(f"no leaderboard {board_id}")
    config = BoardConfig.from_item(item)
    changes: dict[str, Any] = {}
    if "rules" in body:
        changes["rules"] = plausibility.parse(body["rules"], config.order, config.operator)
    if "submissions" in body:
        changes["submissions"] = board_validation.submission_mode(body["submissions"])
    if "max_open_runs" in body:
        changes["max_open_runs"] = board_validation.max_open_runs(body["max_open_runs"])
    changed = replace(config, **changes)
    if not runtime.boards.replace(changed.to_item()):
        raise NotFound(f"no leaderboard {board_id}")
    runtime.board_cache.forget(board_id)
    return board_view(changed, runtime.clock.now(), rules=True)


def all_boards(runtime: Runtime) -> list[BoardConfig]:
    """Every board: built in, declared, then stored (not those being deleted)."""
    stored = [BoardConfig.from_item(i) for i in runtime.boards.all() if i.get("status") != "deleting"]
    return [*declared_boards(runtime.settings).values(), *stored]


LISTING = "leaderboards"  # what a GET /leaderboards cursor is bound to


def list_boards(runtime: Runtime, limit: int, cursor: str | None = None) -> dict[str, Any]:
    """A page of the boards: built in and declared first (in the stack's order), then stored ones in board-id order
    (those being deleted left out); next_cursor while more may follow. One Query per page, at most two."""
    position = cursors.read(runtime, cursor, LISTING) if cursor is not None else None
    declared = list(declared_boards(runtime.settings).values())
    shown = position.last_rank if position else 0  # boards listed by earlier pages
    page = declared[shown : shown + limit]
    more = shown + len(page) < len(declared)
    if not more and len(page) < limit:
        after = position.last_key if position and shown > len(declared) else None
        items, more = runtime.boards.page(after, limit - len(page) + 1)  # one extra: does another follow?
        stored = [i for i in items if i.get("status") != "deleting"]
        more = more or len(stored) > limit - len(page)
        page += [BoardConfig.from_item(i) for i in stored[: limit - len(page)]]
    now = runtime.clock.now()
    answer: dict[str, Any] = {"leaderboards": [board_view(c, now) for c in page], "limit": limit}
    if more and page:
        answer["next_cursor"] = cursors.issue(
            runtime,
            LISTING,
            page[-1].board_id,
            shown + len(page),
            position.issued_ms if position else None,
        )
    return answer


def delete_board(runtime: Runtime, board_id: str, budget: int = 5000) -> tuple[bool, dict[str, Any]]:
    """Remove a board and its entries; returns (done, view). Large boards finish in later calls.

    The config stays as a 'deleting' tombstone until the last entry is gone, so the board
    vanishes at once for readers and its id cannot be reused mid-purge.

    Entries of periods that have ended stay as they closed, as for a live board (docs/PROVING.md, "The closing
    rule"): deleting one would append a `remove` to a closed period's log after its closing signed it, and the
    archived log would replay to an empty board. They go with their period's TTL (which the log does not record);
    all-time never ends and is deleted.
    """
    if board_id in declared_boards(runtime.settings):
        raise BadRequest(f"{board_id} is built in or declared in the stack: remove it from the stack's props instead")
    stored, entries = runtime.boards, runtime.entries
    item = stored.get(board_validation.board_id(board_id))
    if item is None:
        raise NotFound(f"no leaderboard {board_id}")
    config = BoardConfig.from_item(item)
    if item.get("status") != "deleting":
        stored.set_status(board_id, "deleting")
    runtime.board_cache.forget(board_id)
    # Hidden players' entries are outside the rank index the purge below walks: found from the board's decisions.
    hidden = runtime.moderation.players_of_board(board_id)
    now = runtime.clock.now()
    deleted = entries.delete(
        key
        for player in hidden
        for key in entries.keys_of_player_on(player, board_id)
        if not config.ended(item_keys.board_and_period(key[1])[1], now)
    )
    runtime.moderation.forget_board(board_id, hidden)
    runtime.pending.forget_board(board_id)  # its quarantined scores (and their pointers)
    retention_days = runtime.settings.period_retention_days
    for period_id in _period_ids_within_retention(config, now, retention_days):
        if config.ended(period_id, now):  # sealed: see above
            continue
        for part in config.partitions(period_id):
            purged = entries.delete_partition(part, budget - deleted)
            deleted += purged.deleted
            if not purged.done:
                return False, {"board_id": board_id, "status": "deleting", "deleted_entries": deleted}
            for level in (item_keys.BUCKETS, item_keys.BANDS):
                runtime.counters.replace_all(part, level, [])
    # Archived before the item goes: a retry archives it again
    archived = _archive(stored, config, runtime.clock.now(), runtime.settings.archive_retention_days)
    if stored.delete_counted(board_id) == BUSY:  # the tombstone stays: DELETE again finishes
        return False, {"board_id": board_id, "status": "deleting", "deleted_entries": deleted}
    return True, {"board_id": board_id, "status": "deleted", "deleted_entries": deleted, "archived": archived}


def _archive(stored: BoardStore, config: BoardConfig, now: datetime, retention_days: int) -> dict[str, Any]:
    """Keep the deleted generation's config for the archive retention: its logs and closing summaries (never
    deleted with the board) stay served at its generation's URLs (docs/PROVING.md, "Deleted boards")."""
    keep = now + timedelta(days=retention_days)
    record = {
        "board_id": config.board_id,
        "generation": config.generation,
        "config": config.to_item(),
        "deleted_at": iso(now),
        "keep_until": iso(keep),
    }
    stored.archive(record, int(keep.timestamp()))
    return archive_view(record)


def _period_ids_within_retention(config: BoardConfig, now: datetime, retention_days: int) -> list[str]:
    """Every period id that can still hold entries: older ones have been removed by TTL (`retention_days`: the
    settings' period_retention_days)."""
    if config.is_tournament:
        return [periods.TOURNAMENT]
    created = datetime.fromisoformat((config.created_at or iso(now)).replace("Z", "+00:00"))
    start = max(created, now - timedelta(days=retention_days + 31))
    ids: list[str] = []
    day = start
    while day <= now + timedelta(days=1):
        for p in periods.current(day, config.periods):
            if p.period_id not in ids:
                ids.append(p.period_id)
        day += timedelta(days=1)
    return ids
