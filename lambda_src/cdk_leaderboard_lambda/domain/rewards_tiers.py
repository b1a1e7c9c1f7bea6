"""A board's rewards (handed out when a period closes, by rank) and tiers (named by percentile): their rules and
stored form."""

from __future__ import annotations

from ..shared.errors import BadRequest, BrokenRule
from ..shared.limits import CLOSING_TOP, MAX_NAME_LENGTH, MAX_REWARDS, MAX_TIERS
from ..shared.text import display_name


def reward_from_item(r: dict) -> dict:
    """A reward as stored (numbers as Decimal) in the API's form."""
    return {"reward": r["reward"], "ranks": [int(r["ranks"][0]), int(r["ranks"][1])]}


def tier_from_item(t: dict) -> dict:
    """A tier as stored (numbers as Decimal) in the API's form."""
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
    return tuple(reward_from_item(r) for r in value)


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
    return tuple(sorted((tier_from_item(t) for t in value), key=lambda t: -t["min_percentile"]))
