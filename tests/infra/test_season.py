"""The season's clock in the template: the schedule, its target, the bus, and the one permission on it."""

from __future__ import annotations

import json

from cdk_leaderboard_lambda.shared import limits
from cdk_leaderboard_lambda.web import routes


def resources(template, type_: str) -> dict:
    return template.find_resources(type_)


def _function_id(template, handler: str) -> str:
    (found,) = [
        i for i, f in resources(template, "AWS::Lambda::Function").items() if f["Properties"]["Handler"] == handler
    ]
    return found


def test_a_schedule_runs_the_period_closer_every_few_minutes(template):
    rules = resources(template, "AWS::Events::Rule")
    (rule,) = [r for r in rules.values() if "ScheduleExpression" in r["Properties"]]
    assert rule["Properties"]["ScheduleExpression"] == f"rate({limits.CLOSE_EVERY_MINUTES} minutes)"
    assert rule["Properties"]["State"] == "ENABLED"
    # (its other target, with a payload, is the live key's renewal: tests/infra/test_live.py)
    (target,) = [t for t in rule["Properties"]["Targets"] if "Input" not in t]
    closer = _function_id(template, routes.PERIOD_CLOSER.handler)
    assert target["Arn"] == {"Fn::GetAtt": [closer, "Arn"]}
    assert target["RetryPolicy"]["MaximumRetryAttempts"] == 0
    (rule_id,) = [k for k, r in rules.items() if r is rule]
    (permission,) = [
        p
        for p in resources(template, "AWS::Lambda::Permission").values()
        if p["Properties"]["FunctionName"] == {"Fn::GetAtt": [closer, "Arn"]}
        and p["Properties"]["SourceArn"] == {"Fn::GetAtt": [rule_id, "Arn"]}
    ]
    assert permission["Properties"]["Principal"] == "events.amazonaws.com"
    assert permission["Properties"]["SourceArn"]["Fn::GetAtt"][1] == "Arn"  # only this rule may invoke it


def test_the_shared_role_may_put_events_only_on_the_bus_the_closings_use(template):
    (bus_id,) = resources(template, "AWS::Events::EventBus")
    functions = resources(template, "AWS::Lambda::Function")
    role_id = next(iter(functions.values()))["Properties"]["Role"]["Fn::GetAtt"][0]
    granting = [p for p in resources(template, "AWS::IAM::Policy").values() if "events:" in json.dumps(p["Properties"])]
    (policy,) = granting
    assert policy["Properties"]["Roles"] == [{"Ref": role_id}]
    (statement,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Action"] == "events:PutEvents"
    assert statement["Resource"] == {"Fn::GetAtt": [bus_id, "Arn"]}
    role = template.to_json()["Resources"][role_id]
    assert "events:" not in json.dumps(role["Properties"]["Policies"])  # nowhere else
    # the functions that send events are told the bus's name: those that close periods (the schedule's, and the
    # admin's close route) and the submitting one (a quarantined score's "Leaderboard Score Pending")
    with_bus = {
        f["Properties"]["Handler"]
        for f in functions.values()
        if f["Properties"]["Environment"]["Variables"].get("EVENT_BUS_NAME") == {"Ref": bus_id}
    }
    assert with_bus == {routes.PERIOD_CLOSER.handler, routes.LEADERBOARD_ADMIN.handler, routes.SCORE_SUBMIT.handler}


def test_the_event_bus_is_an_output(template):
    (bus_id,) = resources(template, "AWS::Events::EventBus")
    assert template.to_json()["Outputs"]["EventBusName"]["Value"] == {"Ref": bus_id}
