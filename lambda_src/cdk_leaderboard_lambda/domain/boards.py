"""Boards: how a leaderboard orders and combines scores, and which periods it keeps (BoardConfig), and its stored
form. What a new board must be is board_validation.py's; rewards and tiers are rewards_tiers.py's."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from ..shared import item_keys
from ..shared.errors import BadRequest, Conflict, NotFound
from ..shared.limits import (
    BEST,
    DEFAULT_OPEN_RUNS,
    DESC,
    MAX_SCORE,
    RELATIVE_RULES_PER_MINUTE,
    SERVER_SUBMISSIONS,
)
from . import periods, plausibility, rewards_tiers, timestamps
from .periods import Period

DEFAULT_BOARD_ID = item_keys.DEFAULT_BOARD_ID


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
            return [periods.tournament(timestamps.parse_time(self.ends_at, "ends_at"))]
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
        if now < timestamps.parse_time(self.starts_at, "starts_at"):
            raise Conflict(f"tournament {self.board_id} has not started: it starts at {self.starts_at}")
        if now >= timestamps.parse_time(self.ends_at, "ends_at"):
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
            rewards=tuple(rewards_tiers.reward_from_item(r) for r in item.get("rewards", ())),
            tiers=tuple(rewards_tiers.tier_from_item(t) for t in item.get("tiers", ())),
            submissions=item.get("submissions", SERVER_SUBMISSIONS),
            rules=plausibility.from_item(item.get("rules")),
            max_open_runs=int(item.get("max_open_runs", DEFAULT_OPEN_RUNS)),
            generation=str(item.get("generation", item_keys.LEGACY_GENERATION)),
        )


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


DEFAULT_BOARD = BoardConfig(DEFAULT_BOARD_ID, "Global")
