"""The live API key's renewal (no date in the code): the period closer's scheduled task extends the key through
AppSync's UpdateApiKey, here against the local AppSync Events stand-in (the same boto3 client, pointed at it), which
keeps the key's expiry as AppSync does: 7 days unless told, 1 to 365 days on an update, refused once expired,
deleted 60 days after. The clock stands two years ahead of when this was written (2028-12-04)."""

from __future__ import annotations

import asyncio
import io
import json
import pathlib
import re
from contextlib import redirect_stdout
from datetime import UTC, datetime, timedelta

import boto3
import pytest

from bench.live_subscribers import Subscriber, SubscribeRefused
from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.data.live_key import KeyRenewalFailed
from cdk_leaderboard_lambda.operations import live_key
from cdk_leaderboard_lambda.shared import limits
from cdk_leaderboard_lambda.shared.clock import SettableClock
from cdk_leaderboard_lambda.shared.settings import Settings
from local.appsync_events import AppSyncEventsServer

KEY, ACCESS, SECRET, REGION = "da2-localsubscribekey0000000", "AKIDLIVEKEY", "live-key-secret", "eu-west-1"
THEN = datetime(2028, 12, 4, 9, 30, tzinfo=UTC)
DAY = 86400
ROOT = pathlib.Path(__file__).resolve().parents[2]


class Moment:
    """The stand-in's clock (epoch s), moved with the runtime's."""

    def __init__(self, clock: SettableClock) -> None:
        self.clock = clock

    def __call__(self) -> float:
        return self.clock.now().timestamp()


@pytest.fixture
def clock() -> SettableClock:
    return SettableClock(THEN)


@pytest.fixture
def appsync(clock, monkeypatch):
    for name, value in {
        "AWS_ACCESS_KEY_ID": ACCESS,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "SCORES_TABLE": "scores",  # the handler module builds a runtime on import, as on Lambda
        "SNAPSHOTS_TABLE": "snapshots",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)  # boto3's default session keeps what it read first
    server = AppSyncEventsServer(KEY, ACCESS, SECRET, REGION, clock=Moment(clock)).start()
    yield server
    server.stop()


def _period_closer():
    """The handler module, imported once the environment names the tables (it builds its runtime on import)."""
    from cdk_leaderboard_lambda.handlers import period_closer

    return period_closer


def closer(appsync, clock, **env: str):
    period_closer = _period_closer()
    settings = Settings.from_environment(
        {
            "SCORES_TABLE": "scores",
            "SNAPSHOTS_TABLE": "snapshots",
            "LIVE_EVENTS_API_ID": appsync.key.api_id,
            "LIVE_EVENTS_API_KEY_ID": appsync.key.key_id,
            "LIVE_EVENTS_ADMIN_ENDPOINT": appsync.http_url,
            **env,
        }
    )
    return period_closer.handler_for(Runtime.build(settings, clock, dynamodb=object()))


RENEW = {"source": "aws.events", "detail-type": "Scheduled Event", "task": limits.RENEW_LIVE_KEY_TASK}


def subscribe(appsync) -> None:
    live = {
        "realtime_url": appsync.realtime_url,
        "http_host": appsync.http_host,
        "auth": {"host": appsync.http_host, "x-api-key": KEY},
    }

    async def scenario():
        subscriber = await Subscriber(live, "/leaderboard/global/all-time").open()
        await subscriber.close()

    asyncio.run(scenario())


def test_two_years_ahead_the_renewal_extends_the_key_to_90_days_within_appsync_s_window(appsync, clock):
    """A key made on that day (AppSync's 7 days) is extended by the scheduled task to 90 days ahead of that clock,
    rounded down to the hour, inside AppSync's 1..365 days; the key's value is unchanged and still subscribes."""
    assert appsync.key.expires - THEN.timestamp() <= 7 * DAY
    answer = closer(appsync, clock)(RENEW)

    expected = int((THEN + timedelta(days=90)).replace(minute=0).timestamp())
    assert answer["live_key_expires"] == appsync.key.expires == expected
    days = (expected - THEN.timestamp()) / DAY
    assert limits.LIVE_KEY_MIN_DAYS <= days <= limits.LIVE_KEY_MAX_DAYS and 89 < answer["days_left"] <= 90
    clock.set(THEN + timedelta(days=89))
    subscribe(appsync)  # the same key, 89 days later


def test_an_expired_key_is_refused_until_the_renewal_extends_it_again(appsync, clock):
    """Past its expiry the stand-in refuses the key as AppSync does (connection_error, UnauthorizedException); a
    key not yet deleted (60 days) can still be extended, and then subscribes again."""
    clock.set(THEN + timedelta(days=8))
    with pytest.raises(SubscribeRefused) as refused:
        subscribe(appsync)
    assert refused.value.answer["type"] == "connection_error"
    assert refused.value.answer["errors"][0]["errorType"] == "UnauthorizedException"
    closer(appsync, clock)(RENEW)
    subscribe(appsync)


def test_a_deleted_key_fails_the_renewal_loudly_and_reports_no_days_left(appsync, clock):
    """60 days after it lapsed AppSync has deleted the key: NotFoundException, raised (the function's error), and no
    LiveKeyDaysLeft metric, which is what the LiveKeyNotRenewed alarm misses. A success prints the metric."""
    handler = closer(appsync, clock, AWS_LAMBDA_FUNCTION_NAME="period-closer")
    printed = io.StringIO()
    with redirect_stdout(printed):
        handler(RENEW)
    (document,) = [json.loads(line) for line in printed.getvalue().splitlines()]
    assert 89 < document["LiveKeyDaysLeft"] <= 90
    assert document["_aws"]["CloudWatchMetrics"][0]["Metrics"] == [{"Name": "LiveKeyDaysLeft", "Unit": "None"}]

    clock.set(THEN + timedelta(days=90 + 61))
    printed = io.StringIO()
    with redirect_stdout(printed), pytest.raises(KeyRenewalFailed) as failed:
        handler(RENEW)
    assert failed.value.code == "NotFoundException"
    assert "LiveKeyDaysLeft" not in printed.getvalue()


@pytest.mark.parametrize(("days", "says"), [(366, "maximum of 365"), (0.5, "minimum of 1")])
def test_an_expiry_outside_appsync_s_window_is_refused_by_the_stand_in_as_by_appsync(appsync, clock, days, says):
    runtime_key = Runtime.build(
        Settings.from_environment(
            {
                "SCORES_TABLE": "s",
                "SNAPSHOTS_TABLE": "t",
                "LIVE_EVENTS_API_ID": appsync.key.api_id,
                "LIVE_EVENTS_API_KEY_ID": appsync.key.key_id,
                "LIVE_EVENTS_ADMIN_ENDPOINT": appsync.http_url,
            }
        ),
        clock,
        dynamodb=object(),
    ).live_key
    before = appsync.key.expires
    with pytest.raises(KeyRenewalFailed, match=says) as refused:
        runtime_key.extend(int(THEN.timestamp() + days * DAY))
    assert refused.value.code == "ApiKeyValidityOutOfBoundsException"
    assert appsync.key.expires == before  # nothing changed


def test_a_renewal_signed_with_other_credentials_is_refused(appsync, clock, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    with pytest.raises(KeyRenewalFailed) as refused:
        closer(appsync, clock)(RENEW)
    assert refused.value.code == "BadRequestException" and "signature" in str(refused.value)


def test_without_the_key_s_ids_the_renewal_says_what_is_missing(appsync, clock):
    settings = Settings.from_environment({"SCORES_TABLE": "s", "SNAPSHOTS_TABLE": "t"})
    handler = _period_closer().handler_for(Runtime.build(settings, clock, dynamodb=object()))
    with pytest.raises(KeyRenewalFailed, match="LIVE_EVENTS_API_ID"):
        handler(RENEW)


def test_the_target_expiry_is_90_days_ahead_rounded_down_to_the_hour():
    assert live_key.target_expiry(THEN) == int(datetime(2029, 3, 4, 9, tzinfo=UTC).timestamp())
    assert live_key.within_window(live_key.target_expiry(THEN), THEN)


# A date literal (YYYY-MM-DD, datetime(YYYY, ...), an epoch-seconds number) near a mention of an expiry.
_DATE = re.compile(
    r"\b(19|20|21)\d{2}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b|datetime\(\s*\d{4}\s*,|\b1[5-9]\d{8}\b|\b2\d{9}\b"
)


def test_no_date_literal_for_a_key_s_expiry_is_left_in_the_code():
    """Grep-like over stacks/ and lambda_src/: no date within 5 lines of "expir", and no Expires set on a key in the
    construct (a fixed date is a deploy that fails on a known day; the expiry is computed at run time)."""
    found = []
    for root in ("stacks", "lambda_src"):
        for path in sorted((ROOT / root).rglob("*.py")):
            lines = path.read_text().splitlines()
            for i, line in enumerate(lines):
                near = " ".join(lines[max(0, i - 5) : i + 6]).lower()
                if _DATE.search(line) and "expir" in near:
                    found.append(f"{path.relative_to(ROOT)}:{i + 1}: {line.strip()}")
                if root == "stacks" and re.search(r"""["']Expires["']|\bexpires\s*=""", line):
                    found.append(f"{path.relative_to(ROOT)}:{i + 1}: {line.strip()}")
    assert not found, "\n".join(found)
