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
