"""The benchmark's yardstick, the original design (bench/baseline.py), answers as a brute force does: the check the
benchmark used to make on every answer of every run is made here, once (the benchmark measures, the tests check).
The handlers' own answers are checked against a brute force in tests/unit/test_ranking_oracle.py."""

from __future__ import annotations

import time

import pytest

from bench.baseline import OriginalDesign
from cdk_leaderboard_lambda.domain import periods
from cdk_leaderboard_lambda.domain.score_writes import make_entry
from cdk_leaderboard_lambda.operations import board_catalog
from local import invocation
from tests.support.lambda_api import create_board, submit, top

BOARD = "yardstick"
SCORES = {f"p{i:02d}": score for i, score in enumerate([50, 70, 10, 75, 90, 20, 60, 40])}


@pytest.fixture
def yardstick(ddb):
    """The benchmark's kind of board (desc, best, all-time), filled through the handlers; the original design on it
    and the board's partition."""
    assert create_board(BOARD, name="Yardstick", order="desc", operator="best", periods=["all-time"])[0] == 201
    for player, score in SCORES.items():
        assert submit(BOARD, player, score)[0] == 200
    config = board_catalog.get_board(invocation.runtime(), BOARD)
    period = periods.current(invocation.now(), config.periods)[0]
    return OriginalDesign(ddb, invocation.settings().scores_table), config, period


def _brute_force() -> list[str]:
    """Best first (no two players share a score: no tie-break to restate)."""
    return sorted(SCORES, key=lambda p: -SCORES[p])


def test_its_ranking_is_the_brute_force_and_the_handlers_top(yardstick):
    original, config, period = yardstick
    ranking = list(original.ranking(config.leaderboard_id(period.period_id)))
    assert [player for _, player, _ in ranking] == _brute_force()
    assert [key for key, _, _ in ranking] == sorted(key for key, _, _ in ranking)
    handlers = top(BOARD, limit=len(SCORES)).body["entries"]
    assert [e["player_id"] for e in handlers] == _brute_force()


def test_its_pages_rank_total_percentile_and_neighbours_are_exact(yardstick):
    original, config, period = yardstick
    board = config.leaderboard_id(period.period_id)
    keys = [key for key, _, _ in original.ranking(board)]
    ranked = _brute_force()
    assert [e["player_id"] for e in original.page(board, 5)] == ranked[:5]
    assert [e["player_id"] for e in original.page(board, 5, after=keys[4])] == ranked[5:10]
    total = len(ranked)
    for position, player in enumerate(ranked):
        stats = original.player_stats(board, player, window=2)
        rank = position + 1
        assert (stats["rank"], stats["total_players"], stats["score"]) == (rank, total, SCORES[player])
        assert stats["percentile"] == round((total - rank) / total * 100, 1)
        assert stats["above"] == ranked[max(0, position - 2) : position]
        assert stats["below"] == ranked[position + 1 : position + 3]


def test_its_submission_keeps_the_best_and_reports_the_rank_a_count_gives(yardstick):
    original, config, period = yardstick

    def item(player: str, score: int) -> dict:
        entry = make_entry(
            config,
            period,
            player,
            player,
            score,
            int(time.time() * 1000),
            None,
            retention_days=invocation.settings().period_retention_days,
        )
        return {"player_id": entry.player_id, "leaderboard_id": entry.leaderboard_id, **entry.attributes()}

    assert original.submit(item("p02", 5)) == {"score": 10, "changed": False, "rank": _brute_force().index("p02") + 1}
    assert original.submit(item("p02", 85)) == {"score": 85, "changed": True, "rank": 2}  # behind p04's 90 only
    assert original.submit(item("new", 1)) == {"score": 1, "changed": True, "rank": len(SCORES) + 1}
