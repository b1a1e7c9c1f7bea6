"""Pure domain logic: key encoding order, periods, TTL, percentile."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cdk_leaderboard_lambda.domain import periods
from cdk_leaderboard_lambda.operations import ranking_reads
from cdk_leaderboard_lambda.shared import item_keys
from cdk_leaderboard_lambda.shared.errors import BadRequest, NotFound
from cdk_leaderboard_lambda.web.routes import MAX_SCORE

entries = st.tuples(
    st.integers(min_value=0, max_value=MAX_SCORE),
    st.integers(min_value=0, max_value=10**13 - 1),
    st.text(alphabet="abcXYZ019_-.:@", min_size=1, max_size=64),
)


@given(st.lists(entries, min_size=2, max_size=50, unique_by=lambda e: e[2]))
def test_rank_key_order_is_score_desc_then_first_reached_then_player(items):
    """Sorting by the string key equals sorting by (best score, earliest time, player id)."""
    by_key = sorted(items, key=lambda e: item_keys.rank_key(*e))
    by_meaning = sorted(items, key=lambda e: (-e[0], e[1], e[2]))
    assert by_key == by_meaning


@given(entries)
def test_rank_key_round_trips_the_score(entry):
    assert item_keys.score_from_rank_key(item_keys.rank_key(*entry)) == entry[0]


@pytest.mark.parametrize(
    "day, daily, weekly",
    [
        ("2026-11-30", "daily-2026-11-30", "weekly-2026-W49"),
        ("2026-12-31", "daily-2026-12-31", "weekly-2026-W53"),
        ("2027-01-01", "daily-2027-01-01", "weekly-2026-W53"),  # ISO week belongs to the previous year
        ("2027-01-04", "daily-2027-01-04", "weekly-2027-W01"),
    ],
)
def test_current_boards_use_utc_and_iso_weeks(day, daily, weekly):
    now = datetime.fromisoformat(day).replace(hour=23, minute=59, tzinfo=UTC)
    assert [p.period_id for p in periods.current(now, (periods.ALL_TIME, periods.DAILY, periods.WEEKLY))] == [
        "all-time",
        daily,
        weekly,
    ]


def test_resolve_accepts_aliases_and_concrete_ids():
    now = datetime(2026, 11, 30, tzinfo=UTC)
    assert periods.resolve(None, now).period_id == "all-time"
    assert periods.resolve("daily", now).period_id == "daily-2026-11-30"
    assert periods.resolve("weekly-2026-W48", now).kind == "weekly"
    assert periods.resolve("daily-2026-11-29", now).kind == "daily"
    assert periods.resolve("monthly-2026-02", now).ends_at == datetime(2026, 3, 1, tzinfo=UTC)
    assert periods.resolve("monthly", now).period_id == "monthly-2026-11"
    with pytest.raises(NotFound):  # a board period that does not exist
        periods.resolve("monthly", now, kinds=("all-time", "daily"))
    with pytest.raises(NotFound):
        periods.resolve("weekly-2026-W48", now, kinds=("all-time", "daily"))
    assert periods.resolve(None, now, kinds=("daily", "weekly")).kind == "daily"  # no all-time: the first kept
    for bad in ("daily-2026-02-30", "weekly-2026-W60", "yearly", "monthly-2026-13", "all", 7):
        with pytest.raises(BadRequest):
            periods.resolve(bad, now)


def test_period_entries_expire_after_retention_and_all_time_never():
    now = datetime(2026, 11, 30, 15, tzinfo=UTC)
    all_time, daily, weekly, monthly = periods.current(now, periods.KINDS)
    assert periods.expires_at(all_time, 35) is None
    assert periods.expires_at(daily, 35) == int(datetime(2027, 1, 5, tzinfo=UTC).timestamp())
    # Week 49 of 2026 ends Monday 2026-12-07 00:00 UTC.
    assert periods.expires_at(weekly, 0) == int(datetime(2026, 12, 7, tzinfo=UTC).timestamp())
    assert periods.expires_at(monthly, 1) == int(datetime(2026, 12, 2, tzinfo=UTC).timestamp())


def test_percentile_matches_the_original_definition():
    assert ranking_reads.percentile(1, 1) == 0.0
    assert ranking_reads.percentile(1, 38) == 97.4
    assert ranking_reads.percentile(38, 38) == 0.0
