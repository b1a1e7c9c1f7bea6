"""What a board must be to be created: a POST /leaderboards body or a board declared in the construct's props
(parse_new_board), and the fields a PATCH changes, each check saying why it failed."""

from __future__ import annotations

import re
from typing import Any

from ..shared.clock import iso
from ..shared.errors import BadRequest, BrokenRule
from ..shared.limits import (
    BEST,
    BOARD_ID_PATTERN,
    DEFAULT_OPEN_RUNS,
    DESC,
    MAX_BOARD_ID_LENGTH,
    MAX_OPEN_RUNS,
    MAX_SCORE,
    MAX_SHARDS,
    MAX_SUBMISSIONS_PER_MINUTE,
    OPERATORS,
    ORDERS,
    SERVER_SUBMISSIONS,
    SUBMISSION_MODES,
)
from ..shared.text import display_name
from . import periods, plausibility, rewards_tiers, timestamps
from .boards import BoardConfig

_BOARD_ID = re.compile(BOARD_ID_PATTERN)


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
        rewards=rewards_tiers.parse_rewards(body.get("rewards", [])),
        tiers=rewards_tiers.parse_tiers(body.get("tiers", [])),
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


def _tournament_window(body: dict[str, Any]) -> tuple[str, str] | None:
    """starts_at and ends_at, both or neither, instead of periods; normalized to milliseconds and Z."""
    if "starts_at" not in body and "ends_at" not in body:
        return None
    if "starts_at" not in body or "ends_at" not in body:
        raise BadRequest("a tournament needs both starts_at and ends_at")
    if "periods" in body:
        raise BadRequest("a tournament has starts_at and ends_at instead of periods: give one or the other")
    start = timestamps.parse_time(body["starts_at"], "starts_at")
    end = timestamps.parse_time(body["ends_at"], "ends_at")
    if end <= start:
        raise BrokenRule("ends_at must be after starts_at")
    return iso(start), iso(end)
