"""The receipt signing key in the template: its secret, what the shared role may do with it, where the functions
find it, and the two proof routes on API Gateway (docs/PROVING.md)."""

from __future__ import annotations

import json

from cdk_leaderboard_lambda.domain.receipt_keys import KeySet
from tests.support import deployed_api


def _resources(template_json: dict, type_: str) -> dict[str, dict]:
    return {k: r for k, r in template_json["Resources"].items() if r["Type"] == type_}


def _receipt_secret(template_json: dict) -> tuple[str, dict]:
    (found,) = [
        (k, r)
        for k, r in _resources(template_json, "AWS::SecretsManager::Secret").items()
        if k.startswith("LeaderboardApiReceiptSigningSecret")
    ]
    return found


def test_the_secret_generates_a_key_set_the_functions_can_read(prod_template_json):
    """A generated seed in {"seed", "retired": []}: Secrets Manager's generator fills `seed`, 64 characters without
    punctuation, and the document parses as the functions parse it (a stand-in seed of that length)."""
    _, secret = _receipt_secret(prod_template_json)
    generated = secret["Properties"]["GenerateSecretString"]
    assert generated["GenerateStringKey"] == "seed"
    assert generated["PasswordLength"] == 64 and generated["ExcludePunctuation"] is True
    document = {**json.loads(generated["SecretStringTemplate"]), "seed": "a" * 64}
    assert document["retired"] == []
    assert KeySet.parse(json.dumps(document)).jwks()["keys"][0]["status"] == "current"


def test_the_role_may_only_read_the_receipt_key(prod_template_json):
    """One statement names the secret: GetSecretValue only (one value, no versions to list); no statement lets the
    functions write it (rotation is an operator's PutSecretValue)."""
    logical_id, _ = _receipt_secret(prod_template_json)
    statements = [
        s
        for policy in _resources(prod_template_json, "AWS::IAM::Role").values()
        for doc in policy["Properties"].get("Policies", [])
        for s in doc["PolicyDocument"]["Statement"]
    ] + [
        s
        for policy in _resources(prod_template_json, "AWS::IAM::Policy").values()
        for s in policy["Properties"]["PolicyDocument"]["Statement"]
    ]
    naming = [s for s in statements if {"Ref": logical_id} in _listed(s.get("Resource"))]
    assert [(s["Sid"], s["Action"]) for s in naming] == [("ReceiptKeyRead", "secretsmanager:GetSecretValue")]


def _listed(resource: object) -> list:
    return resource if isinstance(resource, list) else [resource]


def test_every_function_is_told_the_secret(prod_template_json):
    logical_id, _ = _receipt_secret(prod_template_json)
    functions = [
        f
        for f in _resources(prod_template_json, "AWS::Lambda::Function").values()
        if "SCORES_TABLE" in f["Properties"].get("Environment", {}).get("Variables", {})
    ]
    assert functions
    for function in functions:
        assert function["Properties"]["Environment"]["Variables"]["RECEIPT_SIGNING_SECRET_ARN"] == {"Ref": logical_id}


def test_outside_production_the_key_derives_from_the_digest_key(dev_template_json):
    """No secret of its own (0.40 USD a month against dev's 10 at idle): the functions are pointed at the digest
    key (the secret CursorSecret), which they may read already, and parse its value as a bare seed; no receipt
    statement, no output."""
    secrets = _resources(dev_template_json, "AWS::SecretsManager::Secret")
    assert not [k for k in secrets if k.startswith("LeaderboardApiReceiptSigningSecret")]
    (cursor,) = [k for k in secrets if k.startswith("LeaderboardApiCursorSecret")]
    functions = [
        f
        for f in _resources(dev_template_json, "AWS::Lambda::Function").values()
        if "SCORES_TABLE" in f["Properties"].get("Environment", {}).get("Variables", {})
    ]
    assert functions
    for function in functions:
        assert function["Properties"]["Environment"]["Variables"]["RECEIPT_SIGNING_SECRET_ARN"] == {"Ref": cursor}
    assert "ReceiptKeyRead" not in json.dumps(dev_template_json["Resources"])
    assert "ReceiptSigningSecretArn" not in dev_template_json.get("Outputs", {})
    assert KeySet.parse("c" * 64).jwks()["keys"][0]["status"] == "current"  # a bare seed is a key set


def test_the_proof_routes_are_public_gets(dev_template_json):
    """GET /.well-known/jwks.json and GET .../players/{player_id}/receipt exist, need no API key."""
    methods = deployed_api.methods(dev_template_json)
    for path in ("/.well-known/jwks.json", "/leaderboards/{board}/players/{player_id}/receipt"):
        assert not deployed_api.needs_key(methods[(path, "GET")]), path
