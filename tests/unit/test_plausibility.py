"""The plausibility rules (plausibility.py) as pure functions: each rule's boundary exact in both board orders,
a run's elapsed time from the server's clock only (a clock behind the run's start counts as no time), rules that
need a run skipped without one, a rejection winning over a quarantine, and bad declarations refused."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdk_leaderboard_lambda.domain import plausibility as p
from cdk_leaderboard_lambda.shared.errors import BadRequest, BrokenRule

scores = st.integers(0, 10**12)
EXAMPLES = settings(max_examples=200, deadline=None)


def rule(name: str, value, action: str = p.REJECT) -> p.Rule:
    return p.Rule(name, Decimal(str(value)), action)


def fires(name: str, value, order: str = p.DESC, **facts) -> bool:
    return p.fires(rule(name, value), p.Facts(**facts), order)


@EXAMPLES
@given(limit=scores, score=scores)
def test_max_score_bounds_the_best_plausible_score_in_either_order(limit, score):
    assert fires(p.MAX_SCORE_RULE, limit, p.DESC, score=score) == (score > limit)
    assert fires(p.MAX_SCORE_RULE, limit, p.ASC, score=score) == (score < limit)  # lower wins: too good is below


@EXAMPLES
@given(started=st.integers(0, 10**13), elapsed_ms=st.integers(-(10**7), 10**7), minimum=st.integers(0, 3600))
def test_min_run_seconds_counts_the_servers_milliseconds_and_a_clock_behind_the_start_as_none(
    started, elapsed_ms, minimum
):
    elapsed = p.elapsed_seconds(started, started + elapsed_ms)
    assert elapsed == Decimal(max(0, elapsed_ms)) / 1000
    assert fires(p.MIN_RUN_SECONDS, minimum, score=0, elapsed_seconds=elapsed) == (max(0, elapsed_ms) < minimum * 1000)


def test_min_run_seconds_at_its_boundary():
    at = p.elapsed_seconds(0, 30_000)
    assert not fires(p.MIN_RUN_SECONDS, 30, score=1, elapsed_seconds=at)
    assert fires(p.MIN_RUN_SECONDS, 30, score=1, elapsed_seconds=p.elapsed_seconds(0, 29_999))
    assert fires(p.MIN_RUN_SECONDS, 0.5, score=1, elapsed_seconds=p.elapsed_seconds(10, 5))  # skew: 0 s


@EXAMPLES
@given(
    rate=st.integers(0, 1000),
    elapsed_ms=st.integers(0, 3_600_000),
    score=scores,
    order=st.sampled_from(["asc", "desc"]),
)
def test_max_score_per_second_is_exact_in_milliseconds_in_either_order(rate, elapsed_ms, score, order):
    elapsed = p.elapsed_seconds(0, elapsed_ms)
    # score > rate x elapsed_ms / 1000, in integers
    assert fires(p.MAX_SCORE_PER_SECOND, rate, order, score=score, elapsed_seconds=elapsed) == (
        score * 1000 > rate * elapsed_ms
    )


def test_a_fractional_rate_has_no_float_rounding_at_its_boundary():
    assert not fires(p.MAX_SCORE_PER_SECOND, 0.1, score=3, elapsed_seconds=Decimal(30))  # 0.1 x 30 = 3 exactly
    assert fires(p.MAX_SCORE_PER_SECOND, 0.1, score=4, elapsed_seconds=Decimal(30))


@EXAMPLES
@given(factor=st.integers(1, 100), best=scores, score=scores)
def test_max_improvement_is_a_factor_over_the_players_own_score_in_either_order(factor, best, score):
    assert fires(p.MAX_IMPROVEMENT, factor, p.DESC, score=score, own_scores=(best,)) == (
        best > 0 and score > factor * best
    )
    assert fires(p.MAX_IMPROVEMENT, factor, p.ASC, score=score, own_scores=(best,)) == (score * factor < best)
    assert not fires(p.MAX_IMPROVEMENT, factor, p.DESC, score=score)  # no stored score: nothing to compare


@EXAMPLES
@given(percent=st.integers(0, 1000), leader=scores, score=scores)
def test_max_over_leader_is_a_percentage_beyond_the_leader_in_either_order(percent, leader, score):
    assert fires(p.MAX_OVER_LEADER, percent, p.DESC, score=score, leader_scores=(leader,)) == (
        score * 100 > leader * (100 + percent)
    )
    assert fires(p.MAX_OVER_LEADER, percent, p.ASC, score=score, leader_scores=(leader,)) == (
        score * (100 + percent) < leader * 100
    )
    assert not fires(p.MAX_OVER_LEADER, percent, p.DESC, score=score)  # an empty period has no leader


def test_any_current_period_may_fire_a_rule():
    assert fires(p.MAX_IMPROVEMENT, 2, score=50, own_scores=(100, 20))  # above 2 x the daily 20
    assert not fires(p.MAX_OVER_LEADER, 10, score=110, leader_scores=(100, 200))


@EXAMPLES
@given(score=scores)
def test_rules_that_need_a_run_are_skipped_without_one(score):
    rules = [rule(p.MIN_RUN_SECONDS, 3600), rule(p.MAX_SCORE_PER_SECOND, 0)]
    assert p.verdict(rules, p.Facts(score)) is None


def test_a_rejection_wins_over_a_quarantine_and_the_first_rule_in_order_is_named():
    rules = [rule(p.MAX_SCORE_RULE, 10, p.QUARANTINE), rule(p.MAX_OVER_LEADER, 0, p.REJECT)]
    assert p.verdict(rules, p.Facts(50, leader_scores=(20,))) == p.Verdict(p.MAX_OVER_LEADER, p.REJECT)
    rules = [rule(p.MIN_RUN_SECONDS, 10, p.QUARANTINE), rule(p.MAX_SCORE_RULE, 10, p.QUARANTINE)]
    assert p.verdict(rules, p.Facts(50, Decimal(1))) == p.Verdict(p.MIN_RUN_SECONDS, p.QUARANTINE)
    assert p.verdict(rules, p.Facts(5, Decimal(11))) is None


def test_declarations_round_trip_and_bad_ones_say_what_is_wrong():
    declared = {
        "max_over_leader": {"value": 12.5, "action": "quarantine"},
        "max_score": {"value": 9, "action": "reject"},
    }
    parsed = p.parse(declared, "desc", "best")
    assert [r.name for r in parsed] == ["max_score", "max_over_leader"]  # checking order
    assert p.declared(parsed) == declared and p.from_item(p.declared(parsed)) == parsed
    with pytest.raises(BrokenRule, match="increment board"):  # 422: operator and rules, two fields
        p.parse({"max_improvement": {"value": 2, "action": "reject"}}, "desc", "increment")
    for bad in (True, "3", None, float("nan"), float("inf"), -1):
        with pytest.raises(BadRequest, match="rules.max_score_per_second.value"):
            p.parse({"max_score_per_second": {"value": bad, "action": "reject"}}, "desc", "best")
