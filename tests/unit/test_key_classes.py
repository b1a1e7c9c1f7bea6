"""Key classes through rotation: the functions tell the game key from the admin key by the value API
Gateway checked, against each class's secret (moto's Secrets Manager here), so a key `make rotate-key` made, with
its new id, opens its class's routes at once; the old value ends when the rotation removes its AWSPREVIOUS label."""

from __future__ import annotations

import boto3
import pytest

from cdk_leaderboard_lambda.domain import api_key_classes, keyring
from cdk_leaderboard_lambda.web import routes
from tests.support.lambda_api import call

GAME0, ADMIN0 = "game-key-value-before-rotation-0000", "admin-key-value-before-rotation-000"
GAME1, ADMIN1 = "game-key-value-after-rotation-11111", "admin-key-value-after-rotation-1111"


@pytest.fixture
def key_secrets(ddb, monkeypatch, reconfigure):
    """The stack's environment: each class's secret, no key given as is (and the key ids the stack used to set,
    which must not matter); a secrets client to rotate with."""
    sm = boto3.client("secretsmanager", region_name="us-east-1")
    arns = {
        "game": sm.create_secret(Name="GameKeySecret", SecretString=GAME0)["ARN"],
        "admin": sm.create_secret(Name="AdminKeySecret", SecretString=ADMIN0)["ARN"],
    }
    monkeypatch.delenv("GAME_API_KEY", raising=False)
    monkeypatch.setenv("GAME_KEY_SECRET_ARN", arns["game"])
    monkeypatch.setenv("ADMIN_KEY_SECRET_ARN", arns["admin"])
    monkeypatch.setenv("GAME_API_KEY_ID", "gamekey000")  # the ids CloudFormation made, before any rotation
    monkeypatch.setenv("ADMIN_API_KEY_ID", "adminkey00")
    reconfigure()
    return sm, arns


def _rotate(sm, arn: str, value: str) -> None:
    sm.put_secret_value(SecretId=arn, SecretString=value)  # what ops/rotation.py does once the new key is in its plan


def _retire(sm, arn: str) -> None:
    """The rotation's end: the old key leaves its plan and its value loses the AWSPREVIOUS label."""
    versions = sm.list_secret_version_ids(SecretId=arn)["Versions"]
    previous = next(v["VersionId"] for v in versions if "AWSPREVIOUS" in v["VersionStages"])
    sm.update_secret_version_stage(SecretId=arn, VersionStage="AWSPREVIOUS", RemoveFromVersionId=previous)


def _score(key: str, key_id: str | None = None):
    return call("POST", "/scores", body={"player_id": "p", "score": 1}, key_id=key_id, api_key=key)


def _board_scores(key: str):
    """The board score route: keyed at API Gateway, which names the key it checked to the function."""
    body = {"player_id": "p", "score": 1}
    return call("POST", "/leaderboards/global/scores", body=body, api_key=key, key_id="some-key-id")


def test_a_rotated_key_opens_its_class_routes_at_once_whatever_its_new_id(key_secrets):
    """Fails on the id compare: the new keys' ids are not the ones the stack wrote into the functions."""
    sm, arns = key_secrets
    assert _score(GAME0, "gamekey000").status == 200  # the warm instance has read both rings
    assert call("POST", "/snapshot", body={}, key_id="adminkey00", api_key=ADMIN0).status == 201
    _rotate(sm, arns["game"], GAME1)
    _rotate(sm, arns["admin"], ADMIN1)
    assert _score(GAME1, "newgamekey").status == 200
    assert call("POST", "/snapshot", body={}, key_id="newadminky", api_key=ADMIN1).status == 201
    assert _board_scores(GAME1).status == 200
    # the classes stay apart: each new key is refused on the other class's routes
    assert _score(ADMIN1, "newadminky").status == 403
    assert call("POST", "/snapshot", body={}, key_id="newgamekey", api_key=GAME1).status == 403


def test_the_old_game_value_ends_when_its_label_goes(key_secrets, monkeypatch, reconfigure):
    """During the grace the old value still submits; once the rotation removed its AWSPREVIOUS label, an instance
    refuses it at its next read (REFRESH_SECONDS; 0 here: every request), should API Gateway pass it at all (it
    refuses it itself once the key left its plan: every route that takes the game key is keyed)."""
    sm, arns = key_secrets
    monkeypatch.setattr(api_key_classes, "REFRESH_SECONDS", 0)
    reconfigure()
    _rotate(sm, arns["game"], GAME1)
    assert _board_scores(GAME0).status == 200 and _board_scores(GAME1).status == 200
    _retire(sm, arns["game"])
    reply = _board_scores(GAME0)
    assert reply.status == 403 and "needs the game key" in reply.body["error"]
    assert _board_scores(GAME1).status == 200


class _Counted:
    def __init__(self, *values: str) -> None:
        self.values, self.reads = list(values), 0

    def __call__(self) -> keyring.Ring:
        self.reads += 1
        return keyring.Ring(*(keyring.Key(str(i), v) for i, v in enumerate(self.values[:2])))


def test_reads_are_bounded_per_value_and_the_other_class_costs_none():
    now = [1000.0]
    game, admin = _Counted(GAME0), _Counted(ADMIN0)

    def ring(load: _Counted) -> keyring.CachedRing:
        return keyring.CachedRing(load, min_chars=1, clock=lambda: now[0], refresh_seconds=10, min_refresh_seconds=1)

    rings = {"game": ring(game), "admin": ring(admin)}
    keys = api_key_classes.KeyClasses(rings, {"game": True, "admin": True}, clock=lambda: now[0])
    assert keys.is_of("game", GAME0) and game.reads == 1
    assert not keys.is_of("game", ADMIN0) and (game.reads, admin.reads) == (1, 1)  # no re-read
    game.values.insert(0, GAME1)  # rotated: the next read knows it
    assert keys.is_of("game", GAME1) and game.reads == 2  # read again at once: vouched and new
    for _ in range(5):
        assert not keys.is_of("game", "a-stale-plan-key")
    assert game.reads == 3  # one read for that value, then remembered for MIN_REFRESH_SECONDS
    now[0] += api_key_classes.MIN_REFRESH_SECONDS
    assert not keys.is_of("game", "a-stale-plan-key") and game.reads == 4  # once more, a second later


def test_the_classes_are_the_routes_access_levels():
    assert (api_key_classes.GAME, api_key_classes.ADMIN) == (routes.GAME, routes.ADMIN)


def test_a_function_told_only_its_own_class_refuses_the_other_key_without_reading_its_secret():
    """As deployed, score-submit is told the game key's secret only, and may read no other: the admin
    key on a game route is refused (403) after at most one re-read of the game ring, never a read of the admin
    secret (which IAM would deny: a 500)."""
    now = [1000.0]
    game = _Counted(GAME0)

    def unreadable() -> keyring.Ring:
        raise AssertionError("the admin key's secret was read")

    rings = {
        "game": keyring.CachedRing(game, min_chars=1, clock=lambda: now[0], refresh_seconds=10, min_refresh_seconds=1),
        "admin": keyring.CachedRing(unreadable, min_chars=1, clock=lambda: now[0]),
    }
    keys = api_key_classes.KeyClasses(rings, {"game": True, "admin": False}, clock=lambda: now[0])
    assert keys.is_of("game", GAME0)
    for _ in range(3):
        assert not keys.is_of("game", ADMIN0)
    assert game.reads == 2  # the first read, and one re-read for that value per MIN_REFRESH_SECONDS
