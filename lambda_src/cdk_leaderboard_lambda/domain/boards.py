"""Boards: how a leaderboard orders and combines scores, and which periods it keeps."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..shared import item_keys
from ..shared.clock import iso
from ..shared.errors import BadRequest, BrokenRule, Conflict, NotFound
from ..shared.limits import (
    BEST,
    BOARD_ID_PATTERN,
    CLOSING_TOP,
    DEFAULT_OPEN_RUNS,
    DESC,
    FIRST_YEAR,
    LAST_YEAR,
    MAX_BOARD_ID_LENGTH,
    MAX_NAME_LENGTH,
    MAX_OPEN_RUNS,
    MAX_REWARDS,
    MAX_SCORE,
    MAX_SHARDS,
    MAX_SUBMISSIONS_PER_MINUTE,
    MAX_TIERS,
    OPERATORS,
    ORDERS,
    RELATIVE_RULES_PER_MINUTE,
    SERVER_SUBMISSIONS,
    SUBMISSION_MODES,
    TIMESTAMP_PATTERN,
)
from ..shared.text import display_name
from . import periods, plausibility
from .periods import Period

DEFAULT_BOARD_ID = item_keys.DEFAULT_BOARD_ID
_BOARD_ID = re.compile(BOARD_ID_PATTERN)
_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)


def parse_time(value: object, field_name: str) -> datetime:
    """An ISO 8601 UTC timestamp as the API takes it: 2026-12-01T18:00:00Z (fractions of a second allowed)."""
    rule = (
        f"{field_name} must be an ISO 8601 UTC time like 2026-12-01T18:00:00Z: a real date and time of the years "
        f"{FIRST_YEAR}-{LAST_YEAR} (the years period ids name)"
    )
    if not isinstance(value, str) or not _TIMESTAMP.fullmatch(value):
        raise BadRequest(rule)
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:  # the document's pattern, not a day of the calendar (2030-02-30): a rule it says in words
        raise BrokenRule(rule) from None


@dataclass(frozen=True)
class BoardConfig:
    board_id: str
    name: str
    order: str = DESC
    operator: str = BEST
    periods: tuple[str, ...] = (periods.ALL_TIME, periods.DAILY, periods.WEEKLY)
    min_score: int = 0
    max_score: int = MAX_SCORE
    created_at: str | None = None
    shards: int = 1  # rank index partitions per period: more for boards written faster than ~1,000/s
    max_submissions_per_minute: int | None = None  # per player on this board; None: no per-player limit
    stored: bool = field(default=False, compare=False)  # an item of the scores table (not built in or declared)
    # A tournament: one period, `tournament`, open from starts_at (inclusive) to ends_at (exclusive); ISO 8601 UTC.
    starts_at: str | None = None
    ends_at: str | None = None
    # Handed out when a period closes: [{"reward", "ranks": [first, last]}] within the closing's top.
    rewards: tuple[dict, ...] = ()
    # [{"name", "min_percentile"}], best first: a player's tier is the first whose minimum their percentile reaches.
    tiers: tuple[dict, ...] = ()
    # Who may submit: "server" (the game key only) or "client" (also a player's run token, tokens.py).
    submissions: str = SERVER_SUBMISSIONS
    # Plausibility rules (plausibility.py), in checking order.
    rules: tuple[plausibility.Rule, ...] = ()
    # Open runs a player may hold at once on a client board; one more ends the oldest (runs.py).
    max_open_runs: int = DEFAULT_OPEN_RUNS
    # Which creation of this board id (item_keys.py, "board generations"): its entries and evidence are keyed by it.
    generation: str = item_keys.LEGACY_GENERATION

    @property
    def evidence_id(self) -> str:
        """The board id as this generation's keys name it (its log, commitments, closings, partitions)."""
        return item_keys.evidence_id(self.board_id, self.generation)

    @property
    def per_player_limit(self) -> int | None:
        """The per-player limit in force: the declared one, else RELATIVE_RULES_PER_MINUTE on a client board with
        relative rules (each accepted run may climb by the rule's factor: the limit bounds the steps), else none."""
        if self.max_submissions_per_minute is not None:
            return self.max_submissions_per_minute
        if self.takes_client_submissions and plausibility.needs(self.rules) & plausibility.STORED_SCORE_RULES:
            return RELATIVE_RULES_PER_MINUTE
        return None

    @property
    def takes_client_submissions(self) -> bool:
        return self.submissions != SERVER_SUBMISSIONS

    def tier_of(self, percentile: float) -> str | None:
        return next((t["name"] for t in self.tiers if percentile >= t["min_percentile"]), None)

    @property
    def is_tournament(self) -> bool:
        return self.ends_at is not None

    def current_periods(self, now: datetime) -> list[Period]:
        """The periods a submission at `now` updates (a tournament's one period, whether open or not)."""
        if self.is_tournament:
            return [periods.tournament(parse_time(self.ends_at, "ends_at"))]
        return periods.current(now, self.periods)

    def resolve_period(self, period: object, now: datetime) -> Period:
        """A period of this board from the API's period parameter (see periods.resolve)."""
        if self.is_tournament:
            if period is None or period == periods.TOURNAMENT:
                return self.current_periods(now)[0]
            raise NotFound(f"tournament {self.board_id} keeps one period: {periods.TOURNAMENT}")
        if period == periods.TOURNAMENT:
            raise NotFound(f"this board keeps no tournament period (it keeps {', '.join(self.periods)})")
        return periods.resolve(period, now, self.periods)

    def ended(self, period_id: str, now: datetime) -> bool:
        """Whether this board's period (an entry's: a concrete id, all-time or tournament) has ended by `now`:
        frozen, as its closing signs it (docs/PROVING.md, "The closing rule")."""
        if period_id == periods.TOURNAMENT:
            return self.is_tournament and periods.ended(self.current_periods(now)[0], now)
        try:
            return periods.ended(periods.resolve(period_id, now), now)
        except (BadRequest, NotFound):  # not a period id this code knows: nothing says it ended
            return False

    def check_open(self, now: datetime) -> None:
        """A tournament takes scores only inside its window: 409 before the start and after the end."""
        if not self.is_tournament:
            return
        if now < parse_time(self.starts_at, "starts_at"):
            raise Conflict(f"tournament {self.board_id} has not started: it starts at {self.starts_at}")
        if now >= parse_time(self.ends_at, "ends_at"):
            raise Conflict(f"tournament {self.board_id} has ended: it ended at {self.ends_at}")

    def leaderboard_id(self, period_id: str) -> str:
        """One period of this board (see item_keys.py for the encoding)."""
        return item_keys.leaderboard_id(self.evidence_id, period_id)

    def partitions(self, period_id: str) -> list[str]:
        """The rank index partitions of one period: one per shard."""
        board_period = self.leaderboard_id(period_id)
        return [item_keys.shard_partition(board_period, k, self.shards) for k in range(self.shards)]

    def player_partition(self, period_id: str, player_id: str) -> str:
        """The rank index partition that holds a player's entry for one period."""
        shard = item_keys.shard_of(player_id, self.shards)
        return item_keys.shard_partition(self.leaderboard_id(period_id), shard, self.shards)

    def better(self, a: int, b: int) -> bool:
        """Whether score a ranks ahead of score b on this board."""
        return a > b if self.order == DESC else a < b

    def in_bounds(self, score: int) -> bool:
        return self.min_score <= score <= self.max_score

    def to_item(self) -> dict[str, Any]:
        item = asdict(self)
        del item["stored"]
        if item["max_submissions_per_minute"] is None:
            del item["max_submissions_per_minute"]
        item["periods"] = list(self.periods)
        if not self.is_tournament:
            del item["starts_at"], item["ends_at"]
        if self.submissions == SERVER_SUBMISSIONS:
            del item["submissions"]  # items stored before the field read as server boards: so do these
        if self.max_open_runs == DEFAULT_OPEN_RUNS:
            del item["max_open_runs"]  # items stored before the field read as the default: so do these
        if self.generation == item_keys.LEGACY_GENERATION:
            del item["generation"]  # items stored before generations read as the legacy one: so do these
        if self.rules:  # values as Decimal: DynamoDB takes no floats (board_view shows them as JSON numbers)
            item["rules"] = {r.name: {"value": r.value, "action": r.action} for r in self.rules}
        else:
            del item["rules"]
        for optional in ("rewards", "tiers"):
            if item[optional]:
                item[optional] = [dict(x) for x in item[optional]]
            else:
                del item[optional]
        return item

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> BoardConfig:
        return cls(
            board_id=item["board_id"],
            name=item["name"],
            order=item["order"],
            operator=item["operator"],
            periods=tuple(item["periods"]),
            min_score=int(item["min_score"]),
            max_score=int(item["max_score"]),
            created_at=item.get("created_at"),
            shards=int(item.get("shards", 1)),
            max_submissions_per_minute=_optional_int(item.get("max_submissions_per_minute")),
            stored=True,
            starts_at=item.get("starts_at"),
            ends_at=item.get("ends_at"),
            rewards=tuple(_reward(r) for r in item.get("rewards", ())),
            tiers=tuple(_tier(t) for t in item.get("tiers", ())),
            submissions=item.get("submissions", SERVER_SUBMISSIONS),
            rules=plausibility.from_item(item.get("rules")),
            max_open_runs=int(item.get("max_open_runs", DEFAULT_OPEN_RUNS)),
            generation=str(item.get("generation", item_keys.LEGACY_GENERATION)),
        )


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


DEFAULT_BOARD = BoardConfig(DEFAULT_BOARD_ID, "Global")


def board_id(value: Any) -> str:
    if not isinstance(value, str) or not _BOARD_ID.fullmatch(value):
        raise BadRequest(
            f"board_id must be 1-{MAX_BOARD_ID_LENGTH} characters: lowercase letters, digits, _ or -, starting with "
            "a letter or digit"
        )
    return value


def parse_new_board(body: dict[str, Any], created_at: str | None) -> BoardConfig:
    """A board from a POST /leaderboards body; every check says why it failed."""
    allowed = {
        "board_id",
        "name",
        "order",
        "operator",
        "periods",
        "min_score",
        "max_score",
        "shards",
        "max_submissions_per_minute",
    }
    allowed |= {"starts_at", "ends_at", "rewards", "tiers", "submissions", "rules", "max_open_runs"}
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(unknown)}")
    bid = board_id(body.get("board_id"))
    name = display_name(body.get("name", bid), "name")
    order = body.get("order", DESC)
    if order not in ORDERS:
        raise BadRequest(f"order must be one of {', '.join(ORDERS)}")
    operator = body.get("operator", BEST)
    if operator not in OPERATORS:
        raise BadRequest(f"operator must be one of {', '.join(OPERATORS)}")
    kinds = body.get("periods", [periods.ALL_TIME])
    if (
        not isinstance(kinds, list)
        or not kinds
        or any(k not in periods.KINDS for k in kinds)
        or len(set(kinds)) != len(kinds)
    ):
        raise BadRequest(f"periods must be a non-empty list of distinct values from {', '.join(periods.KINDS)}")
    bounds = []
    for bound, default in (("min_score", 0), ("max_score", MAX_SCORE)):
        value = body.get(bound, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SCORE:
            raise BadRequest(f"{bound} must be an integer from 0 to {MAX_SCORE}")
        bounds.append(value)
    if bounds[0] > bounds[1]:
        raise BrokenRule("min_score must not be greater than max_score")
    shards = body.get("shards", 1)
    if isinstance(shards, bool) or not isinstance(shards, int) or not 1 <= shards <= MAX_SHARDS:
        raise BadRequest(f"shards must be an integer from 1 to {MAX_SHARDS}")
    per_minute = body.get("max_submissions_per_minute")
    if per_minute is not None and (
        isinstance(per_minute, bool)
        or not isinstance(per_minute, int)
        or not 1 <= per_minute <= MAX_SUBMISSIONS_PER_MINUTE
    ):
        raise BadRequest(f"max_submissions_per_minute must be an integer from 1 to {MAX_SUBMISSIONS_PER_MINUTE}")
    submissions = submission_mode(body.get("submissions", SERVER_SUBMISSIONS))
    open_runs = max_open_runs(body.get("max_open_runs", DEFAULT_OPEN_RUNS))
    ordered_kinds = tuple(k for k in periods.KINDS if k in kinds)
    window = _tournament_window(body)
    if window is not None:
        ordered_kinds = (periods.TOURNAMENT,)
    starts_at, ends_at = window or (None, None)
    return BoardConfig(
        bid,
        name,
        order,
        operator,
        ordered_kinds,
        bounds[0],
        bounds[1],
        created_at,
        shards,
        max_submissions_per_minute=per_minute,
        starts_at=starts_at,
        ends_at=ends_at,
        rewards=parse_rewards(body.get("rewards", [])),
        tiers=parse_tiers(body.get("tiers", [])),
        submissions=submissions,
        rules=plausibility.parse(body.get("rules", {}), order, operator),
        max_open_runs=open_runs,
    )


def max_open_runs(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_OPEN_RUNS:
        raise BadRequest(f"max_open_runs must be an integer from 1 to {MAX_OPEN_RUNS}")
    return value


def submission_mode(value: object) -> str:
    if value not in SUBMISSION_MODES:
        raise BadRequest(
            f"submissions must be one of {', '.join(SUBMISSION_MODES)}: server (the game key only) or client "
            "(also players' devices, with a run token)"
        )
    return str(value)


def _reward(r: dict) -> dict:
    return {"reward": r["reward"], "ranks": [int(r["ranks"][0]), int(r["ranks"][1])]}


def _tier(t: dict) -> dict:
    return {"name": t["name"], "min_percentile": int(t["min_percentile"])}


def _label(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip()) and len(value) <= MAX_NAME_LENGTH


def _check_labels(value: list, field_name: str, label: str) -> None:
    """Reward and tier names are shown like player names: the same text rules, each with its own message."""
    for index, item in enumerate(value):
        if isinstance(item, dict) and _label(item.get(label)):
            display_name(item[label], f"{field_name}[{index}].{label}")


def _rank(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= CLOSING_TOP


def parse_rewards(value: object) -> tuple[dict, ...]:
    rule = (
        f"rewards must be a list of at most {MAX_REWARDS} objects {{reward: a name, ranks: [first, last]}} with "
        f"1 <= first <= last <= {CLOSING_TOP} (the closing keeps the top {CLOSING_TOP})"
    )
    if not isinstance(value, list) or len(value) > MAX_REWARDS:
        raise BadRequest(rule)
    for r in value:
        ranks = r.get("ranks") if isinstance(r, dict) else None
        if (
            not isinstance(r, dict)
            or set(r) != {"reward", "ranks"}
            or not _label(r["reward"])
            or not isinstance(ranks, list)
            or len(ranks) != 2
            or not all(_rank(n) for n in ranks)
        ):
            raise BadRequest(rule)
        if ranks[0] > ranks[1]:  # of the document's shape: a rule between two items it says in words
            raise BrokenRule(rule)
    _check_labels(value, "rewards", "reward")
    return tuple(_reward(r) for r in value)


def parse_tiers(value: object) -> tuple[dict, ...]:
    rule = (
        f"tiers must be a list of at most {MAX_TIERS} objects {{name, min_percentile: an integer 0-100}} with "
        "distinct names and distinct minimums"
    )
    if not isinstance(value, list) or len(value) > MAX_TIERS:
        raise BadRequest(rule)
    for t in value:
        if (
            not isinstance(t, dict)
            or set(t) != {"name", "min_percentile"}
            or not _label(t["name"])
            or isinstance(t["min_percentile"], bool)
            or not isinstance(t["min_percentile"], int)
            or not 0 <= t["min_percentile"] <= 100
        ):
            raise BadRequest(rule)
    if len({t["name"] for t in value}) != len(value) or len({t["min_percentile"] for t in value}) != len(value):
        raise BrokenRule(rule)  # JSON Schema's uniqueItems compares whole items, not one field of them
    _check_labels(value, "tiers", "name")
    return tuple(sorted((_tier(t) for t in value), key=lambda t: -t["min_percentile"]))


def _tournament_window(body: dict[str, Any]) -> tuple[str, str] | None:
    """starts_at and ends_at, both or neither, instead of periods; normalized to milliseconds and Z."""
    if "starts_at" not in body and "ends_at" not in body:
        return None
    if "starts_at" not in body or "ends_at" not in body:
        raise BadRequest("a tournament needs both starts_at and ends_at")
    if "periods" in body:
        raise BadRequest("a tournament has starts_at and ends_at instead of periods: give one or the other")
    start, end = parse_time(body["starts_at"], "starts_at"), parse_time(body["ends_at"], "ends_at")
    if end <= start:
        raise BrokenRule("ends_at must be after starts_at")
    return iso(start), iso(end)
