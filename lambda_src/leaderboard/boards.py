"""Boards: how a leaderboard orders and combines scores, and which periods it keeps."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from . import keys, periods
from .clock import iso
from .errors import BadRequest, Conflict, NotFound
from .limits import (  # noqa: F401  (ASC, LATEST, INCREMENT: boards.X is how the domain names them)
    ASC,
    BEST,
    BOARD_ID_PATTERN,
    DESC,
    INCREMENT,
    LATEST,
    MAX_BOARD_ID_LENGTH,
    MAX_NAME_LENGTH,
    MAX_SCORE,
    MAX_SHARDS,
    OPERATORS,
    ORDERS,
    TIMESTAMP_PATTERN,
)

DEFAULT_BOARD_ID = keys.DEFAULT_BOARD_ID
_BOARD_ID = re.compile(BOARD_ID_PATTERN)
_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)


def parse_time(value: object, field_name: str) -> datetime:
    """An ISO 8601 UTC timestamp as the API takes it: 2026-12-01T18:00:00Z (fractions of a second allowed)."""
    if isinstance(value, str) and _TIMESTAMP.fullmatch(value):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
        except ValueError:
            pass
    raise BadRequest(f"{field_name} must be an ISO 8601 UTC time like 2026-12-01T18:00:00Z")


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
    stored: bool = field(default=False, compare=False)  # an item of the scores table (not built in or declared)
    # A tournament: one period, `tournament`, open from starts_at (inclusive) to ends_at (exclusive); ISO 8601 UTC.
    starts_at: str | None = None
    ends_at: str | None = None

    @property
    def is_tournament(self) -> bool:
        return self.ends_at is not None

    def current_periods(self, now: datetime) -> list[periods.Period]:
        """The periods a submission at `now` updates (a tournament's one period, whether open or not)."""
        if self.is_tournament:
            return [periods.tournament(parse_time(self.ends_at, "ends_at"))]
        return periods.current(now, self.periods)

    def resolve_period(self, period: object, now: datetime) -> periods.Period:
        """A period of this board from the API's period parameter (see periods.resolve)."""
        if self.is_tournament:
            if period is None or period == periods.TOURNAMENT:
                return self.current_periods(now)[0]
            raise NotFound(f"tournament {self.board_id} keeps one period: {periods.TOURNAMENT}")
        if period == periods.TOURNAMENT:
            raise NotFound(f"this board keeps no tournament period (it keeps {', '.join(self.periods)})")
        return periods.resolve(period, now, self.periods)

    def check_open(self, now: datetime) -> None:
        """A tournament takes scores only inside its window: 409 before the start and after the end."""
        if not self.is_tournament:
            return
        if now < parse_time(self.starts_at, "starts_at"):
            raise Conflict(f"tournament {self.board_id} has not started: it starts at {self.starts_at}")
        if now >= parse_time(self.ends_at, "ends_at"):
            raise Conflict(f"tournament {self.board_id} has ended: it ended at {self.ends_at}")

    def leaderboard_id(self, period_id: str) -> str:
        """One period of this board (see keys.py for the encoding)."""
        return keys.leaderboard_id(self.board_id, period_id)

    def partitions(self, period_id: str) -> list[str]:
        """The rank index partitions of one period: one per shard."""
        board_period = self.leaderboard_id(period_id)
        return [keys.shard_partition(board_period, k, self.shards) for k in range(self.shards)]

    def player_partition(self, period_id: str, player_id: str) -> str:
        """The rank index partition that holds a player's entry for one period."""
        shard = keys.shard_of(player_id, self.shards)
        return keys.shard_partition(self.leaderboard_id(period_id), shard, self.shards)

    def better(self, a: int, b: int) -> bool:
        """Whether score a ranks ahead of score b on this board."""
        return a > b if self.order == DESC else a < b

    def in_bounds(self, score: int) -> bool:
        return self.min_score <= score <= self.max_score

    def to_item(self) -> dict[str, Any]:
        item = asdict(self)
        del item["stored"]
        item["periods"] = list(self.periods)
        if not self.is_tournament:
            del item["starts_at"], item["ends_at"]
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
            stored=True,
            starts_at=item.get("starts_at"),
            ends_at=item.get("ends_at"),
        )


DEFAULT_BOARD = BoardConfig(DEFAULT_BOARD_ID, "Global")


def board_id(value: Any) -> str:
    if not isinstance(value, str) or not _BOARD_ID.fullmatch(value):
        raise BadRequest(
            f"board_id must be 1-{MAX_BOARD_ID_LENGTH} characters: lowercase letters, digits, _ or -, starting with "
            "a letter or digit"
        )
    return value


def parse_new_board(body: dict[str, Any], created_at: str) -> BoardConfig:
    """A board from a POST /leaderboards body; every check says why it failed."""
    allowed = {"board_id", "name", "order", "operator", "periods", "min_score", "max_score", "shards"}
    allowed |= {"starts_at", "ends_at"}
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(unknown)}")
    bid = board_id(body.get("board_id"))
    name = body.get("name", bid)
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_LENGTH:
        raise BadRequest(f"name must be a non-empty string of at most {MAX_NAME_LENGTH} characters")
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
        raise BadRequest("min_score must not be greater than max_score")
    shards = body.get("shards", 1)
    if isinstance(shards, bool) or not isinstance(shards, int) or not 1 <= shards <= MAX_SHARDS:
        raise BadRequest(f"shards must be an integer from 1 to {MAX_SHARDS}")
    ordered_kinds = tuple(k for k in periods.KINDS if k in kinds)
    window = _tournament_window(body)
    if window is not None:
        ordered_kinds = (periods.TOURNAMENT,)
    starts_at, ends_at = window or (None, None)
    return BoardConfig(
        bid,
        name.strip(),
        order,
        operator,
        ordered_kinds,
        bounds[0],
        bounds[1],
        created_at,
        shards,
        starts_at=starts_at,
        ends_at=ends_at,
    )


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
        raise BadRequest("ends_at must be after starts_at")
    return iso(start), iso(end)
