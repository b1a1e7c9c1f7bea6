#!/usr/bin/env python3
"""A CDK app of one's own with the leaderboard construct: `pip install -r requirements.txt`, then `cdk synth`."""

import aws_cdk as cdk
from cdk_leaderboard import Board, Leaderboard

app = cdk.App()
stack = cdk.Stack(app, "my-game")
speedrun = Board(board_id="speedrun", order="asc", periods=["all-time", "weekly"])
board = Leaderboard(stack, "Leaderboard", boards=[speedrun])
cdk.CfnOutput(stack, "ApiUrl", value=board.api.url)
app.synth()
