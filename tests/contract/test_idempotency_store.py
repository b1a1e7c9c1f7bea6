"""The idempotency records (ports.IdempotencyStore): the same cases on DynamoDB Local and in memory
(conftest.py). Powertools' own logic runs on both (its DynamoDB layer, and a persistence layer in memory), through
idempotency.once as the functions call it; the erasure's search and delete of a player's records besides."""

from __future__ import annotations

import json
import threading

import pytest
from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig

from cdk_leaderboard_lambda.operations import idempotency
from cdk_leaderboard_lambda.shared.errors import Conflict, Unprocessable


@pytest.fixture
def store(runtime):
    return runtime.idempotency


class Work:
    """A write that counts how often it ran and answers its request's player."""

    def __init__(self) -> None:
        self.runs = 0

    def __call__(self, player: str = "ada", then=None):
        def run() -> dict:
            self.runs += 1
            if then is not None:
                then()
            return {"player": player, "run": self.runs}

        return run


def test_a_retry_gets_the_first_result_without_running_again(store):
    work = Work()
    first = idempotency.once(store, "k1", "scores", {"score": 5}, work())
    assert idempotency.once(store, "k1", "scores", {"score": 5}, work()) == first == {"player": "ada", "run": 1}
    assert work.runs == 1
    assert idempotency.once(store, "k1", "boards", {"score": 5}, work())["run"] == 2  # another scope: another record
    assert idempotency.once(store, "k2", "scores", {"score": 5}, work())["run"] == 3
    assert idempotency.once(store, None, "scores", {"score": 5}, work())["run"] == 4  # no key: no record


def test_the_same_key_with_another_request_is_refused(store):
    work = Work()
    idempotency.once(store, "k1", "scores", {"score": 5}, work())
    with pytest.raises(Unprocessable):
        idempotency.once(store, "k1", "scores", {"score": 6}, work())
    assert work.runs == 1


def test_a_retry_while_the_first_is_in_progress_is_a_conflict(store):
    work, inner = Work(), Work()
    seen: list[Exception] = []

    def retry() -> None:
        try:
            idempotency.once(store, "k1", "scores", {"score": 5}, inner())
        except Conflict as err:
            seen.append(err)

    idempotency.once(store, "k1", "scores", {"score": 5}, work(then=retry))
    assert len(seen) == 1 and inner.runs == 0


class EndedInvocation:
    """Lambda's context of an invocation that has run out of time (Lambda stopped it)."""

    def get_remaining_time_in_millis(self) -> int:
        return -60_000


def test_an_in_progress_record_of_an_invocation_that_ended_is_taken_over(store):
    work, inner = Work(), Work()
    ended = EndedInvocation()
    retry = lambda: idempotency.once(store, "k1", "scores", {"score": 5}, inner("bo"), ended)  # noqa: E731
    idempotency.once(store, "k1", "scores", {"score": 5}, work(then=retry), ended)
    assert inner.runs == 1


def test_an_expired_record_runs_the_work_again(store):
    # The layer's expiry is set on its first configuration: a record that expires as soon as it is stored.
    config = IdempotencyConfig(
        event_key_jmespath="[scope, key]", payload_validation_jmespath="request", expires_after_seconds=-10
    )
    store.persistence().configure(config, "contract")
    work = Work()
    idempotency.once(store, "k1", "scores", {"score": 5}, work())
    assert idempotency.once(store, "k1", "scores", {"score": 5}, work())["run"] == 2


def test_work_that_fails_leaves_no_record(store):
    def failing() -> dict:
        raise ValueError("refused")

    with pytest.raises(ValueError):
        idempotency.once(store, "k1", "scores", {"score": 5}, failing)
    assert idempotency.once(store, "k1", "scores", {"score": 5}, Work()())["run"] == 1


def test_concurrent_requests_with_one_key_run_the_work_once(store):
    work, barrier, outcomes = Work(), threading.Barrier(6), []

    def request() -> None:
        barrier.wait()
        try:
            outcomes.append(idempotency.once(store, "k1", "scores", {"score": 5}, work()))
        except Conflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=request) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert work.runs == 1
    assert all(o in ({"player": "ada", "run": 1}, "conflict") for o in outcomes) and len(outcomes) == 6


def all_holding(store, text: str, limit: int) -> tuple[list[tuple[str, str]], int]:
    found, cursor, pages = [], None, 0
    while True:
        page, cursor = store.records_holding(text, cursor, limit)
        found, pages = found + page, pages + 1
        assert len(page) <= limit
        if cursor is None:
            return found, pages


def test_the_records_holding_a_player_are_found_page_by_page_and_forgotten(store):
    work = Work()
    for n, player in enumerate(["ada", "bo", "ada", "adam", "cy", "ada"]):
        idempotency.once(store, f"k{n}", "scores", {"n": n}, work(player))
    quoted = json.dumps("ada")  # as the erasure matches an id: "ada" and not "adam"
    found, pages = all_holding(store, quoted, 2)
    assert len(found) == 3 and len(set(found)) == 3 and pages >= 3  # the filter applies after the limit
    assert all_holding(store, quoted, 100)[0] == found
    assert store.forget(found) == 3
    assert all_holding(store, quoted, 100)[0] == []
    assert len(all_holding(store, json.dumps("adam"), 100)[0]) == 1
    assert idempotency.once(store, "k0", "scores", {"n": 0}, work("ada"))["run"] == 7  # forgotten: runs again
    assert idempotency.once(store, "k1", "scores", {"n": 1}, work("bo"))["run"] == 2  # kept
