"""Key and password rotation against moto: a deployed stage as the stack leaves it, then `python -m ops`.

After a key rotation the old key no longer works at API Gateway's level (its usage plan no longer holds
it, and it is disabled or deleted) and the new value is in the key's secret; and no old key goes before its new one
answers a keyed read through the API (a stand-in for the API that honours a key only some seconds after it joined
its plan, as API Gateway may).
"""

from __future__ import annotations

import json

import pytest

from ops import rotation
from ops.__main__ import main
from ops.rotation import KEY_READS, REFRESH_COMMAND, KeyNotHonoured, RefreshFailed, Rotator
from tests.support.account import REGION

GAME_VALUE, ADMIN_VALUE = "g" * 40, "a" * 40
API_URL = "https://abc123.execute-api.eu-west-1.amazonaws.com/dev/"


class Api:
    """The deployed API as a keyed read meets it: API Gateway answers 403 to a value that is not an enabled key of a
    usage plan, or whose key joined its plan less than `honour_after_s` ago (on a clock the rotation's waits move);
    otherwise the function's answer to that read. Every request and every plan change is logged in order."""

    def __init__(self, apigw, honour_after_s: float = 0.0) -> None:
        self.apigw, self.honour_after_s = apigw, honour_after_s
        self.now = 0.0
        self.joined: dict[str, float] = {}
        self.log: list[tuple] = []
        apigw.meta.events.register("after-call.apigateway.CreateUsagePlanKey", self._joined)
        apigw.meta.events.register("before-parameter-build.apigateway.DeleteUsagePlanKey", self._leaving)

    def _joined(self, parsed, **_) -> None:
        self.joined[parsed["id"]] = self.now
        self.log.append(("joined", parsed["id"], self.now))

    def _leaving(self, params, **_) -> None:
        self.log.append(("retired", params["keyId"], self.now))

    def wait(self, seconds: float) -> None:
        self.now += seconds

    def send(self, url: str, method: str, key: str, body: bytes | None) -> int:
        read = next(r for r in KEY_READS.values() if (r.method, API_URL.rstrip("/") + r.path) == (method, url))
        honoured = self.honours(key)
        self.log.append(("read", honoured, self.now))
        return min(read.answers) if honoured else 403

    def honours(self, value: str) -> bool:
        keys = self.apigw.get_api_keys(includeValues=True)["items"]
        plans = self.apigw.get_usage_plans()["items"]
        in_plans = {k["id"] for p in plans for k in self.apigw.get_usage_plan_keys(usagePlanId=p["id"])["items"]}
        return any(
            k["value"] == value
            and k["enabled"]
            and k["id"] in in_plans
            and self.now - self.joined.get(k["id"], float("-inf")) >= self.honour_after_s
            for k in keys
        )


class Stage:
    """What `cdk deploy` leaves: the REST API, the two plans with the stack's own keys (values from their
    secrets), the password secret, the dashboard instance, and the stack's outputs."""

    def __init__(self, session) -> None:
        self.session = session
        apigw, secrets = session.client("apigateway"), session.client("secretsmanager")
        self.apigw, self.secrets, self.ssm = apigw, secrets, session.client("ssm")
        api = apigw.create_rest_api(name="leaderboard-dev")
        root = {"restApiId": api["id"], "resourceId": api["rootResourceId"], "httpMethod": "GET"}
        apigw.put_method(**root, authorizationType="NONE")
        apigw.put_integration(**root, type="MOCK")
        apigw.create_deployment(restApiId=api["id"], stageName="dev")
        outputs = {}
        self.initial_keys = {}
        for title, value in (("Game", GAME_VALUE), ("Admin", ADMIN_VALUE)):
            secret = secrets.create_secret(Name=f"{title}KeySecret", SecretString=value)["ARN"]
            key = apigw.create_api_key(name=f"stack-{title}Key", value=value, enabled=True)
            plan = apigw.create_usage_plan(name=f"{title}Plan", apiStages=[{"apiId": api["id"], "stage": "dev"}])
            apigw.create_usage_plan_key(usagePlanId=plan["id"], keyId=key["id"], keyType="API_KEY")
            outputs[f"{title}KeySecretArn"], outputs[f"{title}UsagePlanId"] = secret, plan["id"]
            self.initial_keys[title] = key["id"]
        outputs["DashboardPasswordSecretArn"] = secrets.create_secret(
            Name="AdminPasswordSecret", SecretString=json.dumps({"username": "admin", "password": "initialPassw0rd"})
        )["ARN"]
        # ami-12c6146b: one of moto's built-in images (listing them all takes seconds)
        instance = session.client("ec2").run_instances(ImageId="ami-12c6146b", MinCount=1, MaxCount=1)["Instances"][0]
        outputs["DashboardInstanceId"] = instance["InstanceId"]
        outputs["ApiUrl"] = API_URL
        self.outputs = outputs
        template = {
            "Resources": {
                "Marker": {
                    "Type": "AWS::SSM::Parameter",
                    "Properties": {"Name": "/leaderboard-dev/marker", "Type": "String", "Value": "x"},
                }
            },
            "Outputs": {name: {"Value": value} for name, value in outputs.items()},
        }
        session.client("cloudformation").create_stack(StackName="leaderboard-dev", TemplateBody=json.dumps(template))

    def plan_key_ids(self, title: str) -> list[str]:
        plan_id = self.outputs[f"{title}UsagePlanId"]
        return [k["id"] for k in self.apigw.get_usage_plan_keys(usagePlanId=plan_id)["items"]]

    def secret(self, title: str) -> str:
        return self.secrets.get_secret_value(SecretId=self.outputs[f"{title}KeySecretArn"])["SecretString"]

    def key(self, key_id: str) -> dict:
        return self.apigw.get_api_key(apiKey=key_id, includeValue=True)

    def refresh_commands(self) -> list[dict]:
        return [c for c in self.ssm.list_commands()["Commands"] if c["Parameters"]["commands"] == [REFRESH_COMMAND]]


@pytest.fixture
def stage(session) -> Stage:
    return Stage(session)


def rotator(stage: Stage, **kwargs) -> Rotator:
    """The rotation of the stage, against an API that honours every key of a plan at once unless `api` is given."""
    made = Rotator.for_stack(stage.session, "leaderboard-dev", **{"out": lambda _: None, **kwargs})
    if made.send is None:
        made.send = Api(made.apigw).send
    return made


def previous_label(stage: Stage, title: str) -> list[str]:
    """The versions of the key's secret labelled AWSPREVIOUS (the old value, while the functions accept it)."""
    arn = stage.outputs[f"{title}KeySecretArn"]
    versions = stage.secrets.list_secret_version_ids(SecretId=arn)["Versions"]
    return [v["VersionId"] for v in versions if "AWSPREVIOUS" in v["VersionStages"]]


def test_game_key_rotation_replaces_the_key_in_its_plan_and_its_secret(stage):
    new = rotator(stage).rotate_keys(["game"], grace_s=0)["game"]
    old = stage.initial_keys["Game"]
    assert stage.plan_key_ids("Game") == [new]  # API Gateway no longer accepts the old key
    assert stage.secret("Game") == stage.key(new)["value"] != GAME_VALUE
    assert stage.key(old)["enabled"] is False  # the stack's own key: disabled, not deleted
    assert stage.plan_key_ids("Admin") == [stage.initial_keys["Admin"]] and stage.secret("Admin") == ADMIN_VALUE
    assert stage.refresh_commands() == []  # the game key is not on the dashboard
    assert previous_label(stage, "Game") == []  # nor is the old value accepted where API Gateway checks no key


def test_admin_key_rotation_refreshes_the_dashboard_before_the_old_key_goes(stage):
    seen = {}

    def grace(seconds: float) -> None:  # the moment the old key would still be in use
        seen["seconds"] = seconds
        seen["plan"] = stage.plan_key_ids("Admin")
        seen["commands"] = stage.refresh_commands()
        seen["previous"] = previous_label(stage, "Admin")

    new = rotator(stage, wait=grace).rotate_keys(["admin"], grace_s=120)["admin"]
    old = stage.initial_keys["Admin"]
    assert seen["seconds"] == 120
    assert sorted(seen["plan"]) == sorted([old, new])  # both valid during the grace period
    assert len(seen["previous"]) == 1  # the old value too, where the functions compare it
    (command,) = seen["commands"]
    assert command["InstanceIds"] == [stage.outputs["DashboardInstanceId"]]
    assert command["DocumentName"] == "AWS-RunShellScript"
    assert stage.plan_key_ids("Admin") == [new]
    assert stage.secret("Admin") == stage.key(new)["value"]
    assert previous_label(stage, "Admin") == []  # the grace ended on every route at once


def test_a_grace_shorter_than_the_functions_pickup_returns_once_they_can_take_the_new_key(stage):
    waits: list[float] = []
    rotator(stage, wait=waits.append).rotate_keys(["game"], grace_s=0)
    (pickup,) = waits  # no grace wait; then what is left of NEW_KEY_PICKUP_S
    assert 0 < pickup <= 1.0


def test_a_key_made_by_a_rotation_is_deleted_by_the_next(stage):
    first = rotator(stage).rotate_keys(["game"], grace_s=0)["game"]
    second = rotator(stage).rotate_keys(["game"], grace_s=0)["game"]
    assert stage.plan_key_ids("Game") == [second]
    with pytest.raises(stage.apigw.exceptions.NotFoundException):
        stage.key(first)


def test_a_failed_dashboard_refresh_retires_nothing_and_a_rerun_finishes(stage, monkeypatch):
    def broken(self):
        raise RefreshFailed("instance unreachable")

    monkeypatch.setattr(Rotator, "refresh_dashboard", broken)
    with pytest.raises(RefreshFailed):
        rotator(stage).rotate_keys(["admin"], grace_s=0)
    old = stage.initial_keys["Admin"]
    assert old in stage.plan_key_ids("Admin") and stage.key(old)["enabled"] is True
    assert len(stage.plan_key_ids("Admin")) == 2
    monkeypatch.undo()
    new = rotator(stage).rotate_keys(["admin"], grace_s=0)["admin"]
    assert stage.plan_key_ids("Admin") == [new]  # the old key and the half-done rotation's key are gone


def test_password_rotation_puts_a_new_password_and_refreshes_the_dashboard(stage):
    arn = stage.outputs["DashboardPasswordSecretArn"]
    rotator(stage).rotate_password()
    secret = json.loads(stage.secrets.get_secret_value(SecretId=arn)["SecretString"])
    assert secret["username"] == "admin"
    assert secret["password"] != "initialPassw0rd" and len(secret["password"]) == 24
    (command,) = stage.refresh_commands()
    assert command["InstanceIds"] == [stage.outputs["DashboardInstanceId"]]


def test_cli_rotates_both_keys_and_prints_no_secret(stage, capsys, monkeypatch):
    monkeypatch.setattr(rotation, "send_request", Api(stage.apigw).send)
    assert main(["rotate-key", "--stage", "dev", "--grace-seconds", "0"], session=stage.session) == 0
    printed = capsys.readouterr()
    for title, initial in (("Game", GAME_VALUE), ("Admin", ADMIN_VALUE)):
        (new,) = stage.plan_key_ids(title)
        assert new != stage.initial_keys[title]
        assert stage.secret(title) != initial
        assert stage.secret(title) not in printed.out + printed.err
    assert len(stage.refresh_commands()) == 1  # one refresh for both keys


def test_cli_on_a_stage_that_is_not_deployed(session, capsys):
    assert main(["rotate-password", "--stage", "prod"], session=session) == 1
    assert f"stack leaderboard-prod does not exist in {REGION}" in capsys.readouterr().err


@pytest.mark.parametrize("title", ["Game", "Admin"])
def test_with_no_grace_the_old_key_leaves_only_once_the_new_one_answers(stage, title):
    """API Gateway honours the new key 5 s after it joined its plan: the rotation asks again, backing off, and
    retires the old key only after the new one answered, whatever GRACE says."""
    made = rotator(stage)
    api = Api(made.apigw, honour_after_s=5.0)
    made.send, made.wait = api.send, api.wait
    new = made.rotate_keys([title.lower()], grace_s=0)[title.lower()]
    events = [e[:2] for e in api.log]
    first_answer = events.index(("read", True))
    assert events.index(("joined", new)) < events.index(("read", False)) < first_answer  # refused at first
    assert first_answer < events.index(("retired", stage.initial_keys[title]))
    joined_at = next(at for kind, key, at in api.log if (kind, key) == ("joined", new))
    answered_at = api.log[first_answer][2]
    assert 5.0 <= answered_at - joined_at < 5.0 + rotation.NEW_KEY_LONGEST_DELAY_S  # backed off, not much longer
    assert stage.plan_key_ids(title) == [new]


def test_a_new_key_that_never_answers_fails_loudly_and_retires_nothing(stage, capsys):
    made = rotator(stage, new_key_timeout_s=30.0)
    api = Api(made.apigw, honour_after_s=float("inf"))
    made.send, made.wait = api.send, api.wait
    with pytest.raises(KeyNotHonoured, match="no old key was retired, both stay valid"):
        made.rotate_keys(["game"], grace_s=0)
    assert api.now == 30.0  # asked until the time allowed had passed, no longer
    old = stage.initial_keys["Game"]
    assert old in stage.plan_key_ids("Game") and stage.key(old)["enabled"] is True
    assert len(previous_label(stage, "Game")) == 1  # the functions still take the old value too
    assert all(kind != "retired" for kind, *_ in api.log)


def test_the_cli_reports_a_key_that_never_answers(stage, capsys, monkeypatch):
    monkeypatch.setattr(rotation, "send_request", lambda *_: 403)
    monkeypatch.setattr(rotation, "NEW_KEY_TIMEOUT_S", 0.0)  # no waiting in a test
    assert main(["rotate-key", "--stage", "dev", "--key", "game", "--grace-seconds", "0"], session=stage.session) == 1
    assert "did not answer POST https://abc123" in capsys.readouterr().err
    assert stage.initial_keys["Game"] in stage.plan_key_ids("Game")


def test_the_keyed_reads_are_keyed_routes_of_their_class_that_change_nothing():
    """The admin key's read is a GET; the game key has no read, so its check is a request its function refuses
    before any work (an invalid player id: the route's first check)."""
    for access, read in KEY_READS.items():
        route = read.route()
        assert route is not None and route.access == access
        assert route.method == "GET" or (route.operation == "issue_token" and read.answers == {400})
