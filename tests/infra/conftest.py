"""Synthesizes each stage once per session, with cdk-nag on; tests read the template, never AWS.

Every test directory's fixtures share these (tests/infra/test_compliance.py checks the nag and lint results): a stage
configuration that a test needs once more is a session fixture here, not another synth in the test.
"""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import Validations
from aws_cdk.assertions import Template
from cdk_leaderboard import Board, Leaderboard, Waf
from cdk_nag import AwsSolutionsChecks

from stacks.app_builder import build_app, cdk_json_context, stack_name


def _synthesized(stage: str, context: dict | None = None) -> cdk.App:
    """build_app attaches AwsSolutionsChecks (nag=True): synth raises on any unacknowledged finding."""
    app = build_app(stage, context=context, nag=True)
    app.synth()
    return app


def _template(app: cdk.App, stage: str) -> dict:
    return app.synth().get_stack_by_name(stack_name(stage)).template  # a second synth() returns the first assembly


@pytest.fixture(scope="session")
def dev_app() -> cdk.App:
    return _synthesized("dev")


@pytest.fixture(scope="session")
def prod_app() -> cdk.App:
    return _synthesized("prod")


@pytest.fixture(scope="session")
def dev_template_json(dev_app) -> dict:
    return _template(dev_app, "dev")


@pytest.fixture(scope="session")
def prod_template_json(prod_app) -> dict:
    return _template(prod_app, "prod")


@pytest.fixture(scope="session")
def template(dev_template_json) -> Template:
    return Template.from_json(dev_template_json)


@pytest.fixture(scope="session")
def prod_template(prod_template_json) -> Template:
    return Template.from_json(prod_template_json)


# A stage with every optional prop away from its default, so that each prop's template effect has a test.
CUSTOM_STAGE = {
    "account_has_api_gateway_logging_role": True,
    "powertools_layer_arn": "arn:aws:lambda:us-east-1:017000801446:layer:AWSLambdaPowertoolsPythonV3-python314-arm64:9",
    "waf": {"requests_per_5_minutes_per_ip": 1000},
    "cloudfront_prefix_list_id": "pl-0123456789abcdef0",
    "reserved_concurrency": {"score-submit": 50},
    "instance_type": "t3.nano",
    "live": {"api_key_generation": 3},
}


@pytest.fixture(scope="session")
def custom_stage() -> dict:
    return CUSTOM_STAGE


@pytest.fixture(scope="session")
def custom_app(custom_stage) -> cdk.App:
    return _synthesized("custom", {"stages": {"custom": custom_stage}})


@pytest.fixture(scope="session")
def custom_template_json(custom_app) -> dict:
    return _template(custom_app, "custom")


@pytest.fixture(scope="session")
def users_app(tmp_path_factory) -> cdk.App:
    """What a user writes (the CDK's recommended way): stacks with a concrete account and region, two leaderboards in
    one stack (both with a WAF and a dashboard, so that their metric and resource names can clash) and one without a
    dashboard in another, cdk-nag on; synthesized (raises on any unacknowledged finding). test_compliance lints it,
    test_names reads its names."""
    env = cdk.Environment(account="111111111111", region="us-east-1")
    # What `cdk synth` would have looked up and cached in cdk.context.json (tests make no AWS calls).
    zones = {"availability-zones:account=111111111111:region=us-east-1": ["us-east-1a", "us-east-1b", "us-east-1c"]}
    outdir = tmp_path_factory.mktemp("users-app") / "cdk.out"
    app = cdk.App(context={**cdk_json_context(), **zones}, outdir=str(outdir))
    games = cdk.Stack(app, "games", env=env)
    Leaderboard(games, "Arcade", waf=Waf(requests_per_5_minutes_per_ip=1000))
    Leaderboard(
        games,
        "Racing",
        boards=[Board(board_id="lap", order="asc", periods=["all-time", "weekly"])],
        account_has_api_gateway_logging_role=True,  # the account-wide setting is the first one's
        waf=Waf(requests_per_5_minutes_per_ip=1000),
    )
    tools = cdk.Stack(app, "tools", env=env)
    Leaderboard(tools, "Leaderboard", account_has_api_gateway_logging_role=True, production=True, dashboard=False)
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    app.synth()
    return app
