"""`python -m ops live-off|live-on --stage dev` (make live-off / live-on) on moto: the kill switch is one item of the
deployed stage's scores table (found by the stack output ScoresTableName), written through the store the functions
read, no deploy; a stage without live updates is refused with a reason."""

from __future__ import annotations

import json

from cdk_leaderboard_lambda.data.live_state import DynamoLiveState
from cdk_leaderboard_lambda.shared import schema
from ops.__main__ import main

TABLE = "leaderboard-dev-scores"


def deploy(session) -> DynamoLiveState:
    """A deployed dev stage as far as the switch goes: its scores table and the stack output naming it."""
    keys = [(schema.SCORES_PARTITION_KEY, "HASH"), (schema.SCORES_SORT_KEY, "RANGE")]
    session.client("dynamodb").create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": name, "KeyType": kind} for name, kind in keys],
        AttributeDefinitions=[{"AttributeName": name, "AttributeType": "S"} for name, _ in keys],
        BillingMode="PAY_PER_REQUEST",
    )
    template = {
        "Resources": {
            "Marker": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": "/leaderboard-dev/marker", "Type": "String", "Value": "x"},
            }
        },
        "Outputs": {"ScoresTableName": {"Value": TABLE}},
    }
    session.client("cloudformation").create_stack(StackName="leaderboard-dev", TemplateBody=json.dumps(template))
    return DynamoLiveState(session.client("dynamodb"), TABLE)


def test_live_off_then_on_flips_the_switch_the_functions_read(session, capsys):
    state = deploy(session)
    assert state.switched_off() is False  # no item: on
    assert main(["live-off", "--stage", "dev"], session=session) == 0
    assert state.switched_off() is True
    assert "are off" in capsys.readouterr().out
    assert main(["live-on", "--stage", "dev"], session=session) == 0
    assert state.switched_off() is False


def test_an_undeployed_stage_is_refused_with_a_reason(session, capsys):
    assert main(["live-off", "--stage", "dev"], session=session) == 1
    assert "does not exist" in capsys.readouterr().err
