"""The deployment's keys, one purpose each: the digest key (never rotated) keeps CursorSecret's logical id
and generated value, the page-cursor keys have a secret of their own in production and derive from the token secret
elsewhere (dev's idle budget: tests/infra/test_idle_cost.py), and the one role reads each as it needs."""

from __future__ import annotations

import json

import pytest

from tests.support import role_access

DIGEST = "LeaderboardApiCursorSecret18C616FF"  # tests/infra/stateful_ids.json: the value that keyed every item


def _secrets(template: dict) -> dict[str, dict]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == "AWS::SecretsManager::Secret"}


def _logical_id(template: dict, prefix: str) -> str:
    (found,) = [k for k in _secrets(template) if k.startswith(prefix)]
    return found


def _functions_env(template: dict) -> list[dict]:
    found = [
        f["Properties"]["Environment"]["Variables"]
        for f in template["Resources"].values()
        if f["Type"] == "AWS::Lambda::Function"
        and "SCORES_TABLE" in f["Properties"].get("Environment", {}).get("Variables", {})
    ]
    assert found
    return found


def _statements(template: dict) -> dict[str, dict]:
    return role_access.by_sid(template)  # the role's inline and attached policies


def _refs(resource: object) -> list[str]:
    return sorted(r["Ref"] for r in (resource if isinstance(resource, list) else [resource]))


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_the_digest_key_keeps_the_cursor_secrets_id_and_generated_value(stage, dev_template_json, prod_template_json):
    """CloudFormation generates a new value when GenerateSecretString changes: it must not, or every hashed
    partition moves on upgrade. Only the description changes (it tells an operator never to put a new value)."""
    template = dev_template_json if stage == "dev" else prod_template_json
    digest = _secrets(template)[DIGEST]["Properties"]
    assert digest["GenerateSecretString"] == {"ExcludePunctuation": True, "PasswordLength": 64}
    assert "NEVER put a new value" in digest["Description"]
    for env in _functions_env(template):
        assert env["DIGEST_KEY_SECRET_ARN"] == {"Ref": DIGEST}
    digest_read = _statements(template)["DigestKeyRead"]
    assert (digest_read["Action"], _refs(digest_read["Resource"])) == ("secretsmanager:GetSecretValue", [DIGEST])


def test_production_signs_cursors_with_a_rotating_secret_of_its_own(prod_template_json):
    cursor = _logical_id(prod_template_json, "LeaderboardApiCursorSigningSecret")
    assert cursor != DIGEST
    for env in _functions_env(prod_template_json):
        assert env["CURSOR_SECRET_ARN"] == {"Ref": cursor}
    statements = _statements(prod_template_json)
    token = _logical_id(prod_template_json, "LeaderboardApiTokenSigningSecret")
    game = _logical_id(prod_template_json, "LeaderboardApiGameKeySecret")
    admin = _logical_id(prod_template_json, "LeaderboardApiAdminKeySecret")  # key classes by value (api_key_classes.py)
    # each rotating secret, current and previous versions, for the functions that use it (test_function_access.py)
    for sid, secret in (
        ("CursorKeyRead", cursor),
        ("TokenKeyRead", token),
        ("GameKeyRead", game),
        ("AdminKeyRead", admin),
    ):
        rotating = statements[sid]
        assert sorted(rotating["Action"]) == ["secretsmanager:GetSecretValue", "secretsmanager:ListSecretVersionIds"]
        assert _refs(rotating["Resource"]) == [secret]
    assert DIGEST not in json.dumps([s for s in statements.values() if s["Sid"] != "DigestKeyRead"])
    assert prod_template_json["Outputs"]["CursorSigningSecretArn"]["Value"] == {"Ref": cursor}


def test_outside_production_cursor_keys_derive_from_the_token_secret(dev_template_json):
    """No cursor secret of its own (dev's idle budget): the functions of the cursor routes read the token secret's
    ring and derive a cursor key from each version (cursors.KEY_LABEL); no output."""
    assert not [k for k in _secrets(dev_template_json) if k.startswith("LeaderboardApiCursorSigningSecret")]
    token = _logical_id(dev_template_json, "LeaderboardApiTokenSigningSecret")
    for env in _functions_env(dev_template_json):
        assert env["CURSOR_SECRET_ARN"] == {"Ref": token}
        assert env["RECEIPT_SIGNING_SECRET_ARN"] == {"Ref": DIGEST}  # never rotates: dev's receipts keep verifying
    assert _refs(_statements(dev_template_json)["CursorKeyRead"]["Resource"]) == [token]
    assert "CursorSigningSecretArn" not in dev_template_json["Outputs"]
    assert len(_secrets(dev_template_json)) == 5  # game, admin, password, token, digest: 2.00 USD a month
