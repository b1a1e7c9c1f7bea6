"""Player and run tokens (cdk_leaderboard_lambda/domain/tokens.py): expiry edges, clock skew leeway, audience,
alteration, key ids, and
key rotation through Secrets Manager's current and previous versions (moto)."""

from __future__ import annotations

import base64
import json

import boto3
import jwt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws

from cdk_leaderboard_lambda.data.secrets import SecretsManagerSecrets
from cdk_leaderboard_lambda.domain import keyring, tokens
from cdk_leaderboard_lambda.shared.errors import Unauthorized
from local import invocation

KEY = "unit-test-token-signing-key-0123456789"
T0 = 1_800_000_000  # a fixed issue time: every check takes `now`, so no test reads the wall clock
LEEWAY = tokens.LEEWAY_SECONDS


def _signer() -> tuple[keyring.CachedRing, str]:
    """The token keys and issuer of the runtime serving the test (reconfigure rebuilds it)."""
    runtime = invocation.runtime()
    return runtime.token_keys, runtime.settings.token_issuer


@pytest.fixture(autouse=True)
def env(monkeypatch, reconfigure):
    monkeypatch.setenv("SCORES_TABLE", "scores")
    monkeypatch.setenv("SNAPSHOTS_TABLE", "snapshots")
    monkeypatch.setenv("TOKEN_SIGNING_KEY", KEY)
    monkeypatch.delenv("TOKEN_SIGNING_SECRET_ARN", raising=False)
    reconfigure()


def _player(lifetime: int = 600, at: float = T0) -> str:
    return tokens.issue(*_signer(), tokens.PLAYER_AUDIENCE, "ada", lifetime, {"boards": ["race"]}, now=at)[0]


def _refused(token, audience=tokens.PLAYER_AUDIENCE, now=T0) -> str:
    with pytest.raises(Unauthorized) as err:
        tokens.verify(*_signer(), token, audience, now=now)
    return err.value.message


def test_a_token_carries_its_player_audience_issuer_key_id_and_times():
    token, expires = tokens.issue(*_signer(), tokens.PLAYER_AUDIENCE, "ada", 600, {"boards": ["race"]}, now=T0)
    assert expires == T0 + 600
    claims = tokens.verify(*_signer(), token, tokens.PLAYER_AUDIENCE, now=T0)
    assert claims == {
        "sub": "ada",
        "boards": ["race"],
        "aud": tokens.PLAYER_AUDIENCE,
        "iss": "leaderboard",
        "iat": T0,
        "exp": T0 + 600,
    }
    assert jwt.get_unverified_header(token) == {"alg": "HS256", "kid": tokens.LOCAL_KID, "typ": "JWT"}


@settings(max_examples=60, deadline=None)
@given(lifetime=st.integers(60, 24 * 3600), past_expiry=st.integers(-3 * LEEWAY, 3 * LEEWAY))
def test_expiry_is_exact_at_the_edge_with_the_leeway(lifetime, past_expiry):
    """Valid until exp + leeway (exclusive), refused from then on, whatever the lifetime."""
    token = _player(lifetime)
    now = T0 + lifetime + LEEWAY + past_expiry
    if past_expiry < 0:
        assert tokens.verify(*_signer(), token, tokens.PLAYER_AUDIENCE, now=now)["sub"] == "ada"
    else:
        assert _refused(token, now=now) == tokens.EXPIRED


@settings(max_examples=40, deadline=None)
@given(ahead=st.integers(0, 4 * LEEWAY))
def test_a_clock_ahead_of_ours_by_up_to_the_leeway_is_tolerated(ahead):
    """A token issued by a machine whose clock runs `ahead` seconds fast: accepted within the leeway, else refused."""
    token = _player(at=T0 + ahead)
    if ahead <= LEEWAY:
        assert tokens.verify(*_signer(), token, tokens.PLAYER_AUDIENCE, now=T0)["iat"] == T0 + ahead
    else:
        assert _refused(token) == tokens.FUTURE


def test_a_run_token_is_not_a_player_token_and_back():
    run = tokens.issue(*_signer(), tokens.RUN_AUDIENCE, "ada", 600, {"board": "race", "run": "r1"}, now=T0)[0]
    assert _refused(run, tokens.PLAYER_AUDIENCE) == "the bearer token is not a player token"
    assert _refused(_player(), tokens.RUN_AUDIENCE) == "the bearer token is not a run token"


def _b64(raw: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(raw).encode()).decode().rstrip("=")


def test_an_altered_token_is_refused_however_it_was_altered():
    header, payload, signature = _player().split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    other_player = f"{header}.{_b64({**claims, 'sub': 'eve'})}.{signature}"
    assert _refused(other_player) == tokens.ALTERED
    longer = f"{header}.{_b64({**claims, 'exp': claims['exp'] + 86400})}.{signature}"
    assert _refused(longer) == tokens.ALTERED
    flipped = signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")
    assert _refused(f"{header}.{payload}.{flipped}") == tokens.ALTERED
    unsigned = f"{_b64({'alg': 'none', 'kid': tokens.LOCAL_KID})}.{payload}."
    assert _refused(unsigned) == tokens.MALFORMED
    for junk in ("", "abc", "a.b", "a.b.c.d", "x" * 3000, None, 42):
        assert _refused(junk) == tokens.MALFORMED


def test_another_key_id_another_issuer_or_another_algorithm_is_refused():
    claims = {"sub": "ada", "aud": tokens.PLAYER_AUDIENCE, "iss": "leaderboard", "iat": T0, "exp": T0 + 600}
    unknown_kid = jwt.encode(claims, KEY, algorithm="HS256", headers={"kid": "someone-elses"})
    assert _refused(unknown_kid) == tokens.UNKNOWN_KEY
    no_kid = jwt.encode(claims, KEY, algorithm="HS256")
    assert _refused(no_kid) == tokens.UNKNOWN_KEY
    other_issuer = jwt.encode({**claims, "iss": "another"}, KEY, algorithm="HS256", headers={"kid": "local"})
    assert _refused(other_issuer) == "the bearer token is issued by another deployment"
    hs512 = jwt.encode(claims, KEY, algorithm="HS512", headers={"kid": "local"})
    assert _refused(hs512) == tokens.MALFORMED
    missing_expiry = jwt.encode({k: v for k, v in claims.items() if k != "exp"}, KEY, "HS256", headers={"kid": "local"})
    assert _refused(missing_expiry) == tokens.MALFORMED


def test_bearer_header_parsing():
    assert tokens.bearer(None) is None
    assert tokens.bearer("Bearer abc") == "abc"
    assert tokens.bearer("bearer  abc ") == "abc"
    for bad in ("Basic abc", "Bearer", "Bearer   ", "abc"):
        with pytest.raises(Unauthorized):
            tokens.bearer(bad)


# --- rotation: the secret's current version signs; the previous one verifies during the grace -------------------

GRACE = 3600


@pytest.fixture
def rotating_secret(monkeypatch, reconfigure):
    with mock_aws():
        client = boto3.client("secretsmanager", region_name="us-east-1")
        arn = client.create_secret(Name="token-key", SecretString="first-key-" + "a" * 32)["ARN"]
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        monkeypatch.delenv("TOKEN_SIGNING_KEY")
        monkeypatch.setenv("TOKEN_SIGNING_SECRET_ARN", arn)
        monkeypatch.setenv("TOKEN_KEY_GRACE_SECONDS", str(GRACE))
        reconfigure()
        yield client, arn


def test_after_a_rotation_the_previous_key_verifies_during_the_grace_and_not_after(rotating_secret, reconfigure):
    client, arn = rotating_secret
    old_token = tokens.issue(*_signer(), tokens.PLAYER_AUDIENCE, "ada", 24 * 3600, now=invocation.seconds())[
        0
    ]  # before the rotation
    old_kid = jwt.get_unverified_header(old_token)["kid"]
    client.put_secret_value(SecretId=arn, SecretString="second-key-" + "b" * 32)  # the rotation
    reconfigure()  # a new instance (a warm one re-reads within keyring.REFRESH_SECONDS)
    ring = invocation.runtime().token_keys.get()
    assert ring.previous.kid == old_kid and ring.current.kid != old_kid
    rotated_at = ring.previous.valid_until - GRACE  # the current version's creation
    new_token = tokens.issue(*_signer(), tokens.PLAYER_AUDIENCE, "ada", 24 * 3600, now=rotated_at)[0]
    assert jwt.get_unverified_header(new_token)["kid"] == ring.current.kid
    assert tokens.verify(*_signer(), old_token, tokens.PLAYER_AUDIENCE, now=rotated_at + GRACE - 1)["sub"] == "ada"
    assert _refused(old_token, now=rotated_at + GRACE) == tokens.UNKNOWN_KEY  # unexpired, but its key is retired
    assert tokens.verify(*_signer(), new_token, tokens.PLAYER_AUDIENCE, now=rotated_at + GRACE)["sub"] == "ada"


def test_the_grace_bounds_the_previous_key_not_the_token():
    """Pure keyring check, at the grace's edges (no Secrets Manager)."""
    ring = keyring.Ring(keyring.Key("new", "n" * 32), keyring.Key("old", "o" * 32, valid_until=T0 + GRACE))
    assert ring.find("old", T0 + GRACE - 1).kid == "old"
    assert ring.find("old", T0 + GRACE) is None
    assert ring.find("new", T0 + 10 * GRACE).kid == "new"
    assert ring.find("other", T0) is None
    assert ring.matches("o" * 32, T0) and not ring.matches("o" * 32, T0 + GRACE)


def test_a_key_signed_after_a_rotation_is_found_by_a_warm_instance_rereading_the_secret(rotating_secret):
    client, arn = rotating_secret
    clock = [0.0]
    cached = keyring.CachedRing(
        lambda: keyring.ring_from_secret(SecretsManagerSecrets(lambda: client), arn, GRACE), clock=lambda: clock[0]
    )
    first = cached.get()
    client.put_secret_value(SecretId=arn, SecretString="second-key-" + "b" * 32)
    assert cached.get() == first  # kept
    clock[0] = keyring.MIN_REFRESH_SECONDS - 1
    assert cached.refreshed() == first  # not re-read more often than MIN_REFRESH_SECONDS
    clock[0] = keyring.MIN_REFRESH_SECONDS
    assert cached.refreshed().previous.kid == first.current.kid


def test_the_game_key_is_compared_by_value_whatever_its_length(monkeypatch, reconfigure):
    """A short key of a test stack once made this a 500."""
    monkeypatch.setenv("GAME_API_KEY", "short-key")
    reconfigure()
    keys = invocation.runtime().api_keys
    assert keys.is_of("game", "short-key")
    assert not keys.is_of("game", "short-kez") and not keys.is_of("game", "")
