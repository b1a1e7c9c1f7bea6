"""The deployed live API key from an operator's machine, on moto: preflight reads its expiry (comfortably ahead, or
FAIL with `python -m ops renew-live-key`), says a configured fixed expiry is ignored (and whether it is outside
AppSync's 1..365 days), and `python -m ops renew-live-key --stage dev` extends the same key through the renewal
code the stack's schedule runs. moto's AppSync keeps an Event API's keys as a GraphQL API's (the same
ListApiKeys/UpdateApiKey), but checks no 1..365-day window: the local stand-in does (tests/unit/test_live_key.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from cdk_leaderboard.props import LeaderboardProps, Live

from ops.preflight import FAIL, OK, Preflight

NOW = datetime(2028, 12, 4, 9, tzinfo=UTC)  # two years after this was written: nothing here depends on the day
DAY = 86400


def deploy(session, key_expires: datetime) -> tuple[str, str]:
    """A deployed dev stage as far as the live key goes: an AppSync API with one key, and the stack's outputs."""
    appsync = session.client("appsync")
    api_id = appsync.create_graphql_api(name="live", authenticationType="API_KEY")["graphqlApi"]["apiId"]
    key_id = appsync.create_api_key(apiId=api_id, expires=int(key_expires.timestamp()))["apiKey"]["id"]
    template = {
        "Resources": {
            "Marker": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": "/leaderboard-dev/marker", "Type": "String", "Value": "x"},
            }
        },
        "Outputs": {"LiveApiId": {"Value": api_id}, "LiveApiKeyId": {"Value": key_id}},
    }
    session.client("cloudformation").create_stack(StackName="leaderboard-dev", TemplateBody=json.dumps(template))
    return api_id, key_id


def check(session, props=None, now=NOW):
    return Preflight(session, props or LeaderboardProps(stage="dev"), now=lambda: now).live_api_key()


def test_an_undeployed_stage_passes_and_says_what_happens_at_creation(session):
    result = check(session)
    assert result.status == OK and "not deployed yet" in result.detail and "7 days" in result.detail


def test_a_key_renewed_on_schedule_passes(session):
    deploy(session, NOW + timedelta(days=89))
    result = check(session)
    assert (result.status, result.detail) == (OK, "expires in 89 days")


@pytest.mark.parametrize(("days", "says"), [(10, "expires in 10.0 days"), (-3, "expired")])
def test_a_key_near_its_expiry_fails_with_the_renew_command(session, days, says):
    deploy(session, NOW + timedelta(days=days))
    result = check(session)
    assert result.status == FAIL and says in result.detail
    assert "python -m ops renew-live-key --stage dev" in result.fix


def test_a_deleted_key_fails_with_the_generation_fix(session):
    api_id, key_id = deploy(session, NOW + timedelta(days=50))
    session.client("appsync").delete_api_key(apiId=api_id, id=key_id)
    result = check(session)
    assert result.status == FAIL and "deleted" in result.detail and "api_key_generation" in result.fix


def test_renew_live_key_extends_the_same_key_to_90_days_ahead(session, capsys):
    from ops.__main__ import main

    api_id, key_id = deploy(session, datetime.now(UTC) + timedelta(days=3))
    assert main(["renew-live-key", "--stage", "dev"], session=session) == 0
    (key,) = session.client("appsync").list_api_keys(apiId=api_id)["apiKeys"]
    assert key["id"] == key_id  # the same key: clients keep it
    left = (key["expires"] - datetime.now(UTC).timestamp()) / DAY
    assert 89 < left <= 90
    assert "renewed: it expires 20" in capsys.readouterr().out


def test_renew_live_key_on_an_undeployed_stage_says_so(session, capsys):
    from ops.__main__ import main

    assert main(["renew-live-key", "--stage", "dev"], session=session) == 1
    assert "does not exist" in capsys.readouterr().err


def test_with_live_off_preflight_checks_no_key_and_renew_says_there_is_none(session, capsys, monkeypatch):
    """A deployed stage with Live(enabled=False) has no LiveApiId/LiveApiKeyId outputs: preflight passes and says
    why, and renew-live-key says live is off instead of asking for a deploy."""
    import ops.__main__ as cli

    session.client("cloudformation").create_stack(
        StackName="leaderboard-dev",
        TemplateBody=json.dumps({"Resources": {"M": {"Type": "AWS::SNS::Topic"}}}),
    )
    off = LeaderboardProps(stage="dev", live=Live(enabled=False))
    result = check(session, off)
    assert (result.status, result.detail) == (OK, "live updates are off (live enabled: false): no key to check")
    monkeypatch.setattr(cli, "stage_props", lambda stage: off)
    assert cli.main(["renew-live-key", "--stage", "dev"], session=session) == 1
    assert "live updates are off for stage dev" in capsys.readouterr().err
