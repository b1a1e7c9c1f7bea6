"""The OpenAPI document and the API agree on board bodies: a body the document calls valid is created, one it
calls invalid is refused (400) and writes nothing, and one of the document's shape that breaks a rule it states in
words (JSON Schema cannot) is a 422, a status the document declares, and writes nothing. Before, a tournament with
periods and a time such as 0000-00-00T00:00:00Z were valid by the document but refused, and the rules in words
were a 400 (schemathesis's positive_data_acceptance)."""

from __future__ import annotations

import pytest
from jsonschema import Draft4Validator

START, END = "2030-01-01T00:00:00Z", "2030-01-08T00:00:00Z"
RULE = "rule"  # of the document's shape, refused by a rule in words
BODIES = {
    "tournament": ({"starts_at": START, "ends_at": END}, True),
    "tournament-with-periods": ({"periods": ["daily"], "starts_at": START, "ends_at": END}, False),
    "tournament-with-periods-all-time": ({"periods": ["all-time"], "starts_at": START, "ends_at": END}, False),
    "starts-at-alone": ({"starts_at": START}, False),
    "ends-at-alone-with-periods": ({"periods": ["daily"], "ends_at": END}, False),
    "time-zero": ({"starts_at": "0000-00-00T00:00:00Z", "ends_at": END}, False),
    "year-999": ({"starts_at": "0999-06-01T00:00:00Z", "ends_at": END}, False),
    "year-9999": ({"starts_at": START, "ends_at": "9999-12-31T23:59:59Z"}, False),
    "month-13": ({"starts_at": "2030-13-01T00:00:00Z", "ends_at": END}, False),
    "hour-24": ({"starts_at": "2030-01-01T24:00:00Z", "ends_at": END}, False),
    "periods-only": ({"periods": ["daily", "weekly"]}, True),
    # valid by the schema, refused by a rule the document says in words: RULE (422)
    "tier-names-shared": ({"tiers": [{"name": "a", "min_percentile": 9}, {"name": "a", "min_percentile": 5}]}, RULE),
    "tier-minimums-shared": ({"tiers": [{"name": "a", "min_percentile": 5}, {"name": "b", "min_percentile": 5}]}, RULE),
    "reward-ranks-backwards": ({"rewards": [{"reward": "r", "ranks": [3, 2]}]}, RULE),
    "min-above-max": ({"min_score": 10, "max_score": 5}, RULE),
    "ends-before-start": ({"starts_at": END, "ends_at": START}, RULE),
    "february-30": ({"starts_at": "2030-02-30T00:00:00Z", "ends_at": END}, RULE),
    "increment-relative-rule": (
        {"operator": "increment", "rules": {"max_improvement": {"value": 2, "action": "reject"}}},
        RULE,
    ),
}


@pytest.fixture(scope="module")
def board_schema(api) -> dict:
    document = api.get("/openapi.json").json()
    return document["paths"]["/leaderboards"]["post"]["requestBody"]["content"]["application/json"]["schema"]


@pytest.mark.parametrize("name", list(BODIES))
def test_the_document_says_what_the_api_does(api, board_schema, table_state, name):
    fields, valid = BODIES[name]
    body = {"board_id": f"doc-{name}", **fields}
    assert Draft4Validator(board_schema).is_valid(body) is bool(valid)
    before = table_state()
    reply = api.post("/leaderboards", body)
    assert reply.status_code == {True: 201, False: 400, RULE: 422}[valid], reply.text
    if valid is True:
        assert api.delete(f"/leaderboards/doc-{name}").status_code in (200, 202)
    else:
        assert table_state() == before
