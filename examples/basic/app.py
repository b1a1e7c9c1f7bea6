#!/usr/bin/env python3
"""A CDK app of one's own with the leaderboard construct: `pip install -r requirements.txt`, then `cdk synth`."""

import aws_cdk as cdk
from cdk_leaderboard import Board, Leaderboard, Monitoring

app = cdk.App()
stack = cdk.Stack(app, "my-game")
speedrun = Board(board_id="speedrun", order="asc", periods=["all-time", "weekly"])
# Every setting and its default: docs/CONFIGURATION.md (related ones in groups, e.g. Throttles, Monitoring).
board = Leaderboard(stack, "Leaderboard", boards=[speedrun], monitoring=Monitoring(level="essential"))
cdk.CfnOutput(stack, "ApiUrl", value=board.api.url)
app.synth()
