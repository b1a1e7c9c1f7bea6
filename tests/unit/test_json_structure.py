"""metadata and evidence are bounded in structure as well as size: at most limits.MAX_JSON_DEPTH (16)
levels and a key count, so every answer that serves them back stays within the nesting limits of strict readers.
Before, about 500 levels fitted in 1,024 bytes. A refusal is a 400 that names the limit and writes nothing."""

from __future__ import annotations

import json

import pytest

from cdk_leaderboard_lambda.shared import limits
from local import invocation
from tests.support.lambda_api import call, scan, top
from tests.support.lambda_api import create_board as create


def nested(levels: int) -> dict:
    """An object `levels` deep: {"a": {"a": ... {} }} (the outer object is level 1)."""
    value: dict = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def _entries(ddb, player_id: str) -> list:
    return [i for i in scan(ddb, invocation.settings().scores_table) if i["player_id"]["S"] == player_id]


def _submit(board: str, player_id: str, **fields):
    return call(
        "POST", f"/leaderboards/{board}/scores", body=json.dumps({"player_id": player_id, "score": 1, **fields})
    )


def test_a_17_level_metadata_is_400_naming_the_limit_and_writes_nothing(ddb):
    create("deep")
    assert limits.MAX_JSON_DEPTH == 16
    status, body, _ = _submit("deep", "p1", metadata=nested(17))
    assert status == 400, body
    assert body["error"] == (
        "metadata must be at most 16 levels deep (the object itself is level 1, each object or array in it one "
        "more): this one is 17"
    )
    assert _entries(ddb, "p1") == []
    arrays = {"a": [[[[[[[[[[[[[[[[{}]]]]]]]]]]]]]]]]}  # arrays count as levels too: 18
    status, body, _ = _submit("deep", "p1", metadata=arrays)
    assert status == 400 and "this one is 18" in body["error"], body


def test_the_deepest_metadata_is_accepted_and_served_back(ddb):
    create("deep")
    status, body, _ = _submit("deep", "p1", metadata=nested(16))
    assert status == 200, body
    assert top("deep").body["entries"][0]["metadata"] == nested(16)


def test_too_many_keys_is_400_naming_the_limit(ddb):
    create("wide")
    flat = {f"k{i}": 0 for i in range(limits.MAX_METADATA_KEYS + 1)}
    status, body, _ = _submit("wide", "p1", metadata=flat)
    assert status == 400, body
    assert body["error"] == "metadata must have at most 64 keys, counted over all its objects: it has 65"
    spread = {f"k{i}": {"x": 0} for i in range(33)}  # 33 at the top, 33 below: 66 in all
    status, body, _ = _submit("wide", "p1", metadata=spread)
    assert status == 400 and "it has 66" in body["error"], body
    assert _entries(ddb, "p1") == []
    status, body, _ = _submit("wide", "p1", metadata={f"k{i}": 0 for i in range(limits.MAX_METADATA_KEYS)})
    assert status == 200, body


def test_deep_evidence_is_400_and_a_bulk_entry_gets_its_own_400(ddb):
    create("ev", rules={"max_score": {"value": 10, "action": "quarantine"}})
    status, body, _ = _submit("ev", "p1", evidence=nested(17))
    assert status == 400 and body["error"].startswith("evidence must be at most 16 levels deep"), body
    bulk = {"entries": [{"player_id": "p2", "score": 1, "metadata": nested(17)}, {"player_id": "p3", "score": 1}]}
    create("bulk")
    status, body, _ = call("POST", "/leaderboards/bulk/scores/bulk", body=json.dumps(bulk))
    assert status == 200, body
    assert [r["status"] for r in body["results"]] == [400, 200]
    assert "16 levels deep" in body["results"][0]["error"]


@pytest.mark.parametrize(
    ("field", "keys"), [("metadata", limits.MAX_METADATA_KEYS), ("evidence", limits.MAX_EVIDENCE_KEYS)]
)
def test_the_openapi_document_states_the_limits(ddb, field, keys):
    document = call("GET", "/openapi.json").body
    schemas = [
        op["requestBody"]["content"]["application/json"]["schema"]
        for path in document["paths"].values()
        for op in path.values()
        if isinstance(op, dict) and "requestBody" in op
    ]
    found = [s["properties"][field] for s in schemas if field in s.get("properties", {})]
    assert found, f"no request body takes {field}"
    for schema in found:
        assert schema["maxProperties"] == keys
        assert "16 levels deep" in schema["description"]
