"""Synthesizes each stage once per session; tests read the template, never AWS."""

from __future__ import annotations

import pytest
from aws_cdk.assertions import Template

from stacks.app_builder import build_app, stack_name


def _synth(stage: str) -> dict:
    assembly = build_app(stage).synth()
    return assembly.get_stack_by_name(stack_name(stage)).template


@pytest.fixture(scope="session")
def dev_template_json() -> dict:
    return _synth("dev")


@pytest.fixture(scope="session")
def prod_template_json() -> dict:
    return _synth("prod")


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
    "live": {"api_key_expires": "2027-06-15", "api_key_generation": 3},
}


@pytest.fixture(scope="session")
def custom_stage() -> dict:
    return CUSTOM_STAGE


@pytest.fixture(scope="session")
def custom_template_json(custom_stage) -> dict:
    assembly = build_app("custom", context={"stages": {"custom": custom_stage}}).synth()
    return assembly.get_stack_by_name(stack_name("custom")).template
