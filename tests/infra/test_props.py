"""Grouped props (Throttles, Monitoring, Live, Waf), today's flat ones accepted with a warning, `existing_event_bus`,
and the configuration reference generated from their docstrings (docs/CONFIGURATION.md)."""

from __future__ import annotations

import dataclasses
import warnings

import aws_cdk as cdk
import pytest
from aws_cdk import aws_events as events
from aws_cdk.assertions import Template
from cdk_leaderboard import Leaderboard, LeaderboardProps, Live, Monitoring, Throttles, Waf

from stacks import config_reference
from stacks.app_builder import cdk_json_context


def test_the_configuration_reference_is_in_step_with_the_props():
    """docs/CONFIGURATION.md is what `make docs-config` renders from the props' docstrings and defaults."""
    assert config_reference.PAGE.read_text() == config_reference.render(), "run `make docs-config`"


@pytest.mark.parametrize("cls", [LeaderboardProps, Throttles, Monitoring, Live, Waf], ids=lambda c: c.__name__)
def test_every_setting_has_a_docstring_for_the_reference(cls):
    documented = config_reference._field_docs(cls)
    assert [f.name for f in dataclasses.fields(cls) if not documented.get(f.name)] == []


# The spellings the unreleased 0.1.0 accepted for a while with a DeprecationWarning (CHANGELOG.md), now refused.
PRE_RELEASE_SPELLINGS = {
    "throttle_rate_limit": 400.0,
    "game_key_rate_limit": 300.0,
    "monitoring_level": "full",
    "alarm_email": "ops@example.com",
    "live_api_key_expires": "2027-06-15",
    "live_api_key_generation": 3,
    "waf_requests_per_5_minutes_per_ip": 1000,
    "vpc": None,
}


@pytest.mark.parametrize("name", sorted(PRE_RELEASE_SPELLINGS))
def test_a_pre_release_spelling_is_refused_by_name(name):
    """A flat prop of the pre-release, or `vpc=` (now `existing_vpc=`), is an unknown setting: in code a TypeError,
    in cdk.json a ValueError naming it; never silently taken."""
    with pytest.raises(TypeError, match=name):
        LeaderboardProps(**{name: PRE_RELEASE_SPELLINGS[name]})
    with pytest.raises(ValueError, match=f"unknown leaderboard props in context for stage dev: {name}"):
        LeaderboardProps.from_context("dev", {name: PRE_RELEASE_SPELLINGS[name]})


@pytest.mark.parametrize(("group", "switch"), [("monitoring", False), ("waf", True)])
def test_a_group_given_as_a_boolean_is_refused(group, switch):
    with pytest.raises(TypeError, match=f"{group} must be"):
        LeaderboardProps(**{group: switch})


def test_grouped_props_raise_no_warning_and_groups_come_from_the_stage_context():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        props = LeaderboardProps.from_context(
            "custom", {"throttles": {"game_key_rate_limit": 50}, "monitoring": {"enabled": False}}
        )
    assert props.throttles == Throttles(game_key_rate_limit=50) and props.monitoring.enabled is False


def test_a_group_must_be_its_dataclass():
    with pytest.raises(TypeError, match="throttles must be Throttles"):
        LeaderboardProps(throttles={"game_key_rate_limit": 50})


def test_an_existing_event_bus_is_used_and_none_is_made():
    """existing_event_bus: the closings go to the user's bus (environment, PutEvents on its ARN); no bus of ours."""
    app = cdk.App(context=cdk_json_context())
    stack = cdk.Stack(app, "games")
    bus = events.EventBus.from_event_bus_arn(
        stack, "GameBus", "arn:aws:events:eu-west-1:111111111111:event-bus/game-events"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # grouped props only: no warning
        Leaderboard(stack, "Leaderboard", existing_event_bus=bus, dashboard=False, monitoring=Monitoring(enabled=False))
    template = Template.from_stack(stack).to_json()
    resources = template["Resources"].values()
    assert not [r for r in resources if r["Type"] == "AWS::Events::EventBus"]
    (policy,) = [r for r in resources if r["Type"] == "AWS::IAM::Policy" and "PutEvents" in str(r)]
    (statement,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Resource"] == "arn:aws:events:eu-west-1:111111111111:event-bus/game-events"
    names = {
        r["Properties"]["Environment"]["Variables"].get("EVENT_BUS_NAME")
        for r in resources
        if r["Type"] == "AWS::Lambda::Function"
    }
    assert "game-events" in names
