"""Plausibility rules of a board: declared as `"rules": {"<rule>": {"value": N, "action": "reject"|"quarantine"}}`,
parsed here and evaluated here, as pure functions of what a submission's caller read (no I/O).

Every rule is defined for both orders of a board: "better" is higher on a desc board and lower on an asc one.

- min_run_seconds: the run lasted less than `value` seconds (its elapsed time by the server's clock: from the run's
  started_at, which the server stamped, to the moment the server takes the score; never a time the client sent).
- max_score_per_second: the score is above `value` x the run's elapsed seconds, in both orders (scores that
  accumulate over a run; on an asc board whose score is a time it says a claimed time cannot exceed the run).
- max_score: the score is better than `value`, the best plausible score: above it on a desc board, below it on an
  asc board (a time faster than the fastest possible).
- max_improvement: the score beats the player's own score stored on a current period by more than the factor
  `value` (>= 1): desc score > value x best (a best of 0 says nothing: skipped); asc score x value < best.
- max_over_leader: the score beats the current leader of a period (hidden players and pending scores are not on
  the board) by more than `value` percent: desc score > leader x (1 + value/100); asc score x (1 + value/100) <
  leader. An empty period has no leader: skipped.

The rules that need a run (RUN_RULES) are skipped for a submission without one (a game server's, with the game
key). A rule's comparison is exact (decimal values, integer scores): no float rounding at the boundary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any

from ..shared.errors import BadRequest, BrokenRule
from ..shared.limits import ASC, BEST, DESC, LATEST, MAX_SCORE, RUN_SECONDS

MIN_RUN_SECONDS = "min_run_seconds"
MAX_SCORE_PER_SECOND = "max_score_per_second"
MAX_SCORE_RULE = "max_score"
MAX_IMPROVEMENT = "max_improvement"
MAX_OVER_LEADER = "max_over_leader"
RULES = (MIN_RUN_SECONDS, MAX_SCORE_PER_SECOND, MAX_SCORE_RULE, MAX_IMPROVEMENT, MAX_OVER_LEADER)  # checking order
RUN_RULES = frozenset({MIN_RUN_SECONDS, MAX_SCORE_PER_SECOND})
# A player's best and a period's leader mean a kept score: not on increment boards, which store totals of deltas.
STORED_SCORE_RULES = frozenset({MAX_IMPROVEMENT, MAX_OVER_LEADER})
REJECT, QUARANTINE = "reject", "quarantine"
ACTIONS = (REJECT, QUARANTINE)
MAX_PERCENT = 1_000_000
MAX_FACTOR = 1_000_000
MAX_RATE = MAX_SCORE

VALUE_PLACES = 6  # a rule's value is kept to this many decimal places (docs/API.md)
VALUE_STEP = Decimal(1).scaleb(-VALUE_PLACES)

# rule -> (lowest value, highest value, whether it must be an integer, what it means)
BOUNDS: Mapping[str, tuple[Decimal, Decimal, bool, str]] = MappingProxyType(
    {
        MIN_RUN_SECONDS: (Decimal(0), Decimal(RUN_SECONDS), False, f"seconds, 0 to {RUN_SECONDS} (a run's lifetime)"),
        MAX_SCORE_PER_SECOND: (Decimal(0), Decimal(MAX_RATE), False, f"points per second, 0 to {MAX_RATE}"),
        MAX_SCORE_RULE: (Decimal(0), Decimal(MAX_SCORE), True, f"an integer score, 0 to {MAX_SCORE}"),
        MAX_IMPROVEMENT: (Decimal(1), Decimal(MAX_FACTOR), False, f"a factor, 1 to {MAX_FACTOR}"),
        MAX_OVER_LEADER: (Decimal(0), Decimal(MAX_PERCENT), False, f"a percentage, 0 to {MAX_PERCENT}"),
    }
)
BOUNDS_LIMIT = max(high for _, high, _, _ in BOUNDS.values())  # above any rule's range: refused unrounded


@dataclass(frozen=True)
class Rule:
    name: str
    value: Decimal
    action: str

    def declared(self) -> dict[str, Any]:
        """As declared (and shown): an integral value as an integer, others as a JSON number."""
        value = self.value
        return {"value": int(value) if value == value.to_integral_value() else float(value), "action": self.action}


@dataclass(frozen=True)
class Facts:
    """What a submission's rules look at: its score, the run's elapsed seconds by the server's clock (None: no
    run), the player's own stored scores on the current periods and the current leaders' scores."""

    score: int
    elapsed_seconds: Decimal | None = None
    own_scores: tuple[int, ...] = ()
    leader_scores: tuple[int, ...] = ()


@dataclass(frozen=True)
class Verdict:
    rule: str
    action: str


def parse(value: object, order: str, operator: str) -> tuple[Rule, ...]:
    """A board's `rules` field: 400 with what is wrong for anything else."""
    if not isinstance(value, dict):
        raise BadRequest(f"rules must be an object whose keys are rules ({', '.join(RULES)})")
    unknown = sorted(set(value) - set(RULES))
    if unknown:
        raise BadRequest(f"unknown rule(s): {', '.join(map(str, unknown))}; rules are {', '.join(RULES)}")
    parsed = []
    for name in RULES:
        if name not in value:
            continue
        spec = value[name]
        low, high, integral, meaning = BOUNDS[name]
        if not isinstance(spec, dict) or set(spec) != {"value", "action"}:
            raise BadRequest(f"rules.{name} must be an object {{value, action}}")
        if spec["action"] not in ACTIONS:
            raise BadRequest(f"rules.{name}.action must be one of {', '.join(ACTIONS)}")
        number = _decimal(spec["value"])
        if number is None or not low <= number <= high or (integral and number != number.to_integral_value()):
            raise BadRequest(f"rules.{name}.value must be {meaning}")
        if name in STORED_SCORE_RULES and operator not in (BEST, LATEST):  # two fields: 422, as board_validation says
            raise BrokenRule(
                f"rules.{name} compares a score with a stored score: an increment board stores totals, not scores"
            )
        parsed.append(Rule(name, number, spec["action"]))
    return tuple(parsed)


def _decimal(value: object) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = Decimal(str(value))  # 1.1 as written, not as the nearest double
        if not number.is_finite() or abs(number) > BOUNDS_LIMIT:
            return None
        # Kept to VALUE_PLACES decimal places: DynamoDB stores 38 digits from 1E-130 at most, and 2.04e-274 is a
        # value the document's range lets through.
        return number.quantize(VALUE_STEP)
    except InvalidOperation:
        return None


def declared(rules: Iterable[Rule]) -> dict[str, dict[str, Any]]:
    return {r.name: r.declared() for r in rules}


def from_item(value: Mapping[str, Any] | None) -> tuple[Rule, ...]:
    """Rules as stored (see declared); DynamoDB gives numbers back as Decimal or int."""
    if not value:
        return ()
    return tuple(Rule(n, Decimal(str(value[n]["value"])), str(value[n]["action"])) for n in RULES if n in value)


def elapsed_seconds(started_ms: int, now_ms: int) -> Decimal:
    """A run's elapsed time by the server's clock; a server clock behind the one that started it counts as 0 s
    (the strictest: a skewed clock never makes a run look longer)."""
    return Decimal(max(0, now_ms - started_ms)) / 1000


def fires(rule: Rule, facts: Facts, order: str) -> bool:
    """Whether one rule refuses (or holds back) the submission; a rule whose facts are missing does not fire."""
    score, value = Decimal(facts.score), rule.value
    desc = order != ASC
    if rule.name in RUN_RULES:
        if facts.elapsed_seconds is None:
            return False
        if rule.name == MIN_RUN_SECONDS:
            return facts.elapsed_seconds < value
        return score > value * facts.elapsed_seconds
    if rule.name == MAX_SCORE_RULE:
        return score > value if desc else score < value
    if rule.name == MAX_IMPROVEMENT:
        if desc:
            return any(best > 0 and score > value * best for best in facts.own_scores)
        return any(score * value < best for best in facts.own_scores)
    factor = 1 + value / 100  # MAX_OVER_LEADER
    if desc:
        return any(score > factor * leader for leader in facts.leader_scores)
    return any(score * factor < leader for leader in facts.leader_scores)


def verdict(rules: Iterable[Rule], facts: Facts, order: str = DESC) -> Verdict | None:
    """The first rule (in RULES order) that fires with action reject, else the first that fires with quarantine,
    else None: a rejection wins over a quarantine."""
    fired = [r for r in rules if fires(r, facts, order)]
    for action in ACTIONS:
        chosen = next((r for r in fired if r.action == action), None)
        if chosen is not None:
            return Verdict(chosen.name, action)
    return None


def needs(rules: Iterable[Rule]) -> frozenset[str]:
    return frozenset(r.name for r in rules)
