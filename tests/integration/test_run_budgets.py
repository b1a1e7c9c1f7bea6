"""A run start's DynamoDB budget (docs/PERFORMANCE.md, "A run start"), metered on DynamoDB Local over HTTP: the
per-player limit's counter, the player's open places on the board (one Query, and one BatchGetItem of the runs in
them when there are any), one TransactWriteItems that takes a place (and ends the oldest run when every place is
taken); on a board with relative rules also the standing the run is judged against (one BatchGetItem of the
player's entries, one rank Query per leader period)."""

from __future__ import annotations

import pytest

from tests.support.player_tokens import player_token

from .test_ratchet import RELATIVE, start
from .test_write_budgets import metered

PLAIN, RULED = "rb-plain", "rb-ruled"


@pytest.fixture(scope="module")
def boards(stack, api):
    stack.reset_tables()
    for board, rules in ((PLAIN, {}), (RULED, RELATIVE)):
        made = api.post("/leaderboards", {"board_id": board, "submissions": "client", "rules": rules})
        assert made.status_code == 201, made.text


def started(api, board: str, token: str):
    with metered() as meter:
        reply = start(api, board, token)
    assert reply.status_code == 201, reply.text
    usage = meter.take()
    print(
        f"\n[run start] {board}: {usage.requests} requests {usage.by_operation}, {usage.read_units} RU, "
        f"{usage.write_units} WU ({usage.transaction_items} transaction items)"
    )
    return usage


# What a start costs once the board's config is cached (the first start of an instance reads it: one GetItem more).
# The limit's counter is one UpdateItem (boards without a per-player limit: none); the open places one Query, and a
# BatchGetItem of their runs when any is open; the standing (relative rules) one BatchGetItem of the player's entries
# and one Query of the leader; then the transaction: the place and the run, and the run it ends when none is free.
# Before all of it, the player token's floor (tokens issued before an erasure of the player): one GetItem.
EXPECTED = {
    PLAIN: (
        {"GetItem": 1, "Query": 1, "TransactWriteItems": 1},
        {"GetItem": 1, "Query": 1, "BatchGetItem": 1, "TransactWriteItems": 1},
    ),
    RULED: (
        {"GetItem": 1, "UpdateItem": 1, "BatchGetItem": 1, "Query": 2, "TransactWriteItems": 1},
        {"GetItem": 1, "UpdateItem": 1, "BatchGetItem": 2, "Query": 2, "TransactWriteItems": 1},
    ),
}


@pytest.mark.parametrize("board", [PLAIN, RULED])
def test_a_run_start_fits_its_budget(api, boards, board):
    token = player_token(api, f"budget-{board}", ttl_seconds=3600)
    started(api, board, token)  # reads the board's config into the instance's cache
    free, taken = EXPECTED[board]
    other = player_token(api, f"other-{board}", ttl_seconds=3600)
    first, second = started(api, board, other), started(api, board, other)  # the second ends the first (1 place)
    assert (first.by_operation, second.by_operation) == (free, taken)
    assert (first.transaction_items, second.transaction_items) == (2, 3)
