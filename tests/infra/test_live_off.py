"""Live updates turned off (`Live(enabled=False)`, cdk.json `"live": {"enabled": false}`): nothing of AppSync is
left, the scores stream has one reader, the role has no live statement, no live alarm or graph, and the
template is nag- and lint-clean, as a stage and in a user's app with a concrete env. Turning it off and on again
as updates: tests/infra/test_updates.py."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import Validations
from cdk_leaderboard import Leaderboard, Live
from cdk_nag import AwsSolutionsChecks

from cdk_leaderboard_lambda.web import routes
from stacks.app_builder import build_app, cdk_json_context, stack_name
from tests.infra.test_compliance import CONCRETE_ENV_EXCEPTIONS, ROOT

STAGE = "dev"
OFF = {"live": {"enabled": False}}


@pytest.fixture(scope="module")
def off_app() -> cdk.App:
    """The dev stage with live off, cdk-nag on (synth raises on any unacknowledged finding)."""
    app = build_app(STAGE, context={"stages": {STAGE: {**cdk_json_context()["stages"][STAGE], **OFF}}}, nag=True)
    app.synth()
    return app


@pytest.fixture(scope="module")
def off(off_app) -> dict:
    return off_app.synth().get_stack_by_name(stack_name(STAGE)).template


@pytest.fixture(scope="module")
def concrete_app(tmp_path_factory) -> cdk.App:
    env = cdk.Environment(account="111111111111", region="us-east-1")
    zones = {"availability-zones:account=111111111111:region=us-east-1": ["us-east-1a", "us-east-1b", "us-east-1c"]}
    app = cdk.App(context={**cdk_json_context(), **zones}, outdir=str(tmp_path_factory.mktemp("off") / "cdk.out"))
    stack = cdk.Stack(app, "games", env=env)
    board = Leaderboard(stack, "Leaderboard", live=Live(enabled=False))
    assert board.live is None and board.live_api is None and board.live_url is None
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    app.synth()
    return app


def _of_type(template: dict, type_: str) -> dict:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == type_}


def test_no_appsync_resource_and_no_renewal_schedule(off):
    assert not [r for r in off["Resources"].values() if r["Type"].startswith("AWS::AppSync::")]
    rules = _of_type(off, "AWS::Events::Rule")
    assert not [k for k, r in rules.items() if "live" in json.dumps(r.get("Properties", {})).lower()], rules.keys()
    assert not [k for k in off["Resources"] if k.startswith("LeaderboardLive")], "a part of LiveUpdates is left"
    assert not [k for k in off.get("Outputs", {}) if k.startswith("Live")]


def test_the_scores_stream_has_one_reader_the_rank_counter(off):
    functions = _of_type(off, "AWS::Lambda::Function")
    mappings = [m["Properties"] for m in _of_type(off, "AWS::Lambda::EventSourceMapping").values()]
    on_scores_stream = [m for m in mappings if "StreamArn" in json.dumps(m["EventSourceArn"])]
    assert len(on_scores_stream) == 1, on_scores_stream
    handler = functions[on_scores_stream[0]["FunctionName"]["Ref"]]["Properties"]["Handler"]
    assert handler == routes.RANK_COUNTER.handler
    # One failure queue (the rank counter's): the broadcaster's went with its mapping.
    assert len(_of_type(off, "AWS::SQS::Queue")) == 1


def test_the_broadcaster_stays_idle_with_no_live_environment(off):
    """The function is kept (one registry, one route table) with nothing to trigger it and no endpoint to call."""
    functions = _of_type(off, "AWS::Lambda::Function").values()
    (broadcaster,) = [f for f in functions if f["Properties"]["Handler"] == routes.LIVE_BROADCASTER.handler]
    for function in functions:
        variables = function["Properties"].get("Environment", {}).get("Variables", {})
        assert not [v for v in variables if v.startswith("LIVE_EVENTS_")], function["Properties"]["Handler"]
    assert broadcaster


def test_the_shared_role_has_no_live_statement(off):
    policies = json.dumps(_of_type(off, "AWS::IAM::Policy")) + json.dumps(_of_type(off, "AWS::IAM::Role"))
    assert "appsync:" not in policies
    assert "LivePublish" not in policies and "LiveKeyRenewal" not in policies
    assert "BroadcasterFailures" not in policies


@pytest.fixture(scope="module")
def off_full() -> dict:
    """Live off at monitoring level "full" (every alarm and the CloudWatch dashboard; dev's own is "essential")."""
    stage = {**cdk_json_context()["stages"][STAGE], **OFF, "monitoring": {"level": "full"}}
    app = build_app(STAGE, context={"stages": {STAGE: stage}}, nag=False)
    return app.synth().get_stack_by_name(stack_name(STAGE)).template


@pytest.mark.parametrize("level", ["essential", "full"])
def test_no_live_alarm_or_graph(level, off, off_full):
    template = off if level == "essential" else off_full
    alarms = _of_type(template, "AWS::CloudWatch::Alarm")
    dashboards = _of_type(template, "AWS::CloudWatch::Dashboard")
    assert alarms and bool(dashboards) == (level == "full")  # what there is to look into
    text = json.dumps(alarms) + json.dumps(dashboards)
    assert "Rank counter" in text or "RankCounter" in text  # the stream's other reader is still watched
    for live_only in ("AWS/AppSync", "LiveKey", "BroadcasterFailures", "Live:", "LiveBroadcasterFailedBatches"):
        assert live_only not in text, live_only


def test_the_dashboard_csp_names_no_appsync_host(off):
    """Nginx's connect-src is the page's own origin only (an empty LIVE_REALTIME_URL: render.py, nginx.conf)."""
    (instance,) = _of_type(off, "AWS::EC2::Instance").values()
    user_data = json.dumps(instance["Properties"]["UserData"])
    assert 'LIVE_REALTIME_URL=\\"\\"' in user_data, user_data[:3000]
    assert "appsync" not in user_data.lower() and "Dns.Realtime" not in user_data


def test_cdk_nag_and_cfn_lint_pass_with_live_off(off, concrete_app, tmp_path):
    """Both apps synthesized with cdk-nag on (their fixtures raise on a finding); cfn-lint over both templates."""
    templates = {"dev-off": off, **{f"concrete-{s.stack_name}": s.template for s in concrete_app.synth().stacks}}
    paths = []
    for name, template in templates.items():
        paths.append(tmp_path / f"{name}.template.json")
        paths[-1].write_text(json.dumps(template))
    lint = [str(Path(sys.executable).with_name("cfn-lint")), "--config-file", str(ROOT / ".cfnlintrc.yaml")]
    result = subprocess.run([*lint, "--format", "json", *map(str, paths)], capture_output=True, text=True)
    assert not result.returncode & 1, result.stderr
    findings = [f for f in json.loads(result.stdout or "[]") if f["Rule"]["Id"] not in CONCRETE_ENV_EXCEPTIONS]
    assert not findings, [(f["Rule"]["Id"], f["Message"]) for f in findings]
    concrete = concrete_app.synth().get_stack_by_name("games").template
    assert not [r for r in concrete["Resources"].values() if r["Type"].startswith("AWS::AppSync::")]


def test_live_enabled_must_be_a_boolean():
    with pytest.raises(ValueError, match="live enabled"):
        Live(enabled="no")  # type: ignore[arg-type]


def test_turning_live_off_removes_exactly_what_serves_live_updates(off, dev_template_json):
    """The figure docs/OPERATIONS.md gives ("Turning live updates off": from N to M resources in dev)."""
    before = Counter(r["Type"] for r in dev_template_json["Resources"].values())
    after = Counter(r["Type"] for r in off["Resources"].values())
    operations = " ".join((Path(__file__).resolve().parents[2] / "docs" / "OPERATIONS.md").read_text().split())
    figure = f"the dev stage goes from {sum(before.values())} to {sum(after.values())} resources"
    assert figure in operations, figure
    assert before - after == Counter(
        {
            "AWS::AppSync::Api": 1,
            "AWS::AppSync::ApiKey": 1,
            "AWS::AppSync::ChannelNamespace": 1,
            "AWS::Lambda::Permission": 1,  # AppSync's, to call the authorizer (the key's renewal is a target of
            # the season's schedule, and the live statements are in the role's scoped policy)
            "AWS::Lambda::EventSourceMapping": 1,  # the broadcaster's
            "AWS::SQS::Queue": 1,  # its failure queue
            "AWS::SQS::QueuePolicy": 1,
            "AWS::CloudWatch::Alarm": 1,  # LiveKeyNotRenewed (dev's "essential" level has no other live alarm)
        }
    )
    assert not after - before
    assert (len(dev_template_json["Resources"]), len(off["Resources"])) == (95, 87)
