"""Client submissions in the template: the token signing secret and who reads it, the token routes
without an API key at API Gateway and with their own method throttle. (Which methods require a key: test_stack.py;
the WAF's per-client count of bearer requests: test_launch_defaults.py; cdk-nag and cfn-lint: test_compliance.py.)"""

from __future__ import annotations

import json

from cdk_leaderboard.props import LeaderboardProps

from cdk_leaderboard_lambda.web import routes
from tests.support import role_access

TOKEN_ROUTES = [r for r in routes.ROUTES if r.access in routes.BEARER]


def _of_type(template: dict, kind: str) -> dict[str, dict]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def _secret(template: dict, purpose: str) -> str:
    (found,) = [
        k
        for k, r in _of_type(template, "AWS::SecretsManager::Secret").items()
        if purpose in r["Properties"]["Description"]
    ]
    return found


def test_a_signing_secret_of_its_own_signs_the_tokens_and_every_function_knows_it(dev_template_json):
    token_secret = _secret(dev_template_json, "signs player and run tokens")
    game_secret = _secret(dev_template_json, "game-server API key")
    generated = dev_template_json["Resources"][token_secret]["Properties"]["GenerateSecretString"]
    assert generated["PasswordLength"] == 64 and generated["ExcludePunctuation"] is True
    for function in _of_type(dev_template_json, "AWS::Lambda::Function").values():
        variables = function["Properties"].get("Environment", {}).get("Variables", {})
        if "SCORES_TABLE" not in variables:
            continue
        assert variables["TOKEN_SIGNING_SECRET_ARN"] == {"Ref": token_secret}
        # the game key's secret only where game-key routes are served (test_function_access.py)
        if function["Properties"]["Handler"] == routes.SCORE_SUBMIT.handler:
            assert variables["GAME_KEY_SECRET_ARN"] == {"Ref": game_secret}
        assert isinstance(variables["TOKEN_ISSUER"], str) and variables["TOKEN_ISSUER"]


def test_the_functions_read_both_versions_of_the_rotating_secrets_and_nothing_else(dev_template_json):
    """Current and previous versions (keyring.py), each secret in a statement of its own, scoped to the functions
    that use it (tests/infra/test_function_access.py)."""
    statements = role_access.by_sid(dev_template_json)
    rotating = {
        sid: s for sid, s in statements.items() if "secretsmanager:ListSecretVersionIds" in json.dumps(s["Action"])
    }
    for statement in rotating.values():
        assert sorted(statement["Action"]) == ["secretsmanager:GetSecretValue", "secretsmanager:ListSecretVersionIds"]
        assert "ArnEquals" in statement["Condition"]
    expected = [
        # the token secret twice outside production: the token key, and the seed of the cursor keys
        _secret(dev_template_json, "signs player and run tokens"),
        _secret(dev_template_json, "signs player and run tokens"),
        _secret(dev_template_json, "game-server"),
        _secret(dev_template_json, "admin API key"),  # the key classes are told apart by value (api_key_classes.py)
    ]
    assert sorted(s["Resource"]["Ref"] for s in rotating.values()) == sorted(expected)


def test_the_token_routes_have_their_own_method_throttle_as_large_as_the_game_keys_plan(dev_template_json):
    """No usage plan meters a method without a key: each token route gets its own bucket (a flood of bad tokens
    cannot take the stage's share of the other methods), as large as the game key's plan. The game servers' score
    route is another method (keyed), so run-token scores never take its tokens."""
    defaults = LeaderboardProps()
    ((stage,),) = [list(_of_type(dev_template_json, "AWS::ApiGateway::Stage").values())]
    settings = {(s["ResourcePath"], s["HttpMethod"]): s for s in stage["Properties"]["MethodSettings"]}
    assert sorted((r.method, r.path) for r in TOKEN_ROUTES) == [
        ("GET", "/leaderboards/{board}/players/{player_id}/receipt"),  # a player's own receipt
        ("GET", "/players/{player_id}"),  # a player's own held scores
        ("POST", "/leaderboards/{board}/runs"),
        ("POST", "/leaderboards/{board}/runs/{run_id}/score"),
    ]
    for route in TOKEN_ROUTES:
        setting = settings[("/" + route.path.replace("/", "~1"), route.method)]
        assert setting["ThrottlingRateLimit"] == defaults.throttles.game_key_rate_limit
        assert setting["ThrottlingBurstLimit"] == defaults.throttles.game_key_burst_limit


def test_player_tokens_are_minted_with_the_game_key_only(dev_template_json):
    (route,) = [r for r in routes.ROUTES if r.path == "/players/{player_id}/tokens"]
    assert (route.method, route.access, route.needs_key) == ("POST", routes.GAME, True)
