"""Integration test for people with an AWS account (`make integ`): aws-cdk's integ-runner deploys this stack, calls
the API, checks the answers, and destroys it. The test suite only synthesizes it
(tests/deploy_rehearsal/test_deploy_rehearsal.py)."""

import aws_cdk as cdk
from aws_cdk.assertions import Match
from aws_cdk.integ_tests_alpha import ExpectedResult, IntegTest
from cdk_leaderboard import Board, Leaderboard, Monitoring

app = cdk.App()
stack = cdk.Stack(app, "leaderboard-integ")
# API, functions and tables only: the dashboard's instance and CloudFront would add 15 minutes to every run.
board = Leaderboard(
    stack,
    "Leaderboard",
    stage="integ",
    dashboard=False,
    monitoring=Monitoring(enabled=False),
    boards=[Board(board_id="speedrun", order="asc")],
)
integ = IntegTest(app, "LeaderboardInteg", test_cases=[stack], regions=[stack.region])

# Anyone may list the boards, and the declared one is there.
listed = integ.assertions.http_api_call(f"{board.api.url}leaderboards")
listed.expect(
    ExpectedResult.object_like(
        {"status": 200, "body": {"leaderboards": Match.array_with([Match.object_like({"board_id": "speedrun"})])}}
    )
)
# A score without the game-server key is refused by API Gateway itself.
keyless = integ.assertions.http_api_call(
    f"{board.api.url}leaderboards/speedrun/scores",
    method="POST",
    body='{"player_id": "p1", "score": 10}',
    headers={"Content-Type": "application/json"},
)
keyless.expect(ExpectedResult.object_like({"status": 403}))


def key_value(secret) -> str:
    """An API key's value, read from its secret at assertion time (it is in no template)."""
    call = integ.assertions.aws_api_call("SecretsManager", "getSecretValue", {"SecretId": secret.secret_arn})
    return call.get_att_string("SecretString")


score = {
    "method": "POST",
    "body": '{"player_id": "p1", "score": 10}',
}
# The game key takes the game servers' score route; the admin key is refused there (a key of the wrong class: the
# function's 403, API Gateway takes any key of the stage's plans).
keyed = integ.assertions.http_api_call(
    f"{board.api.url}leaderboards/speedrun/scores",
    **score,
    headers={"Content-Type": "application/json", "x-api-key": key_value(board.game_key_secret)},
)
keyed.expect(ExpectedResult.object_like({"status": 200}))
wrong_class = integ.assertions.http_api_call(
    f"{board.api.url}leaderboards/speedrun/scores",
    **score,
    headers={"Content-Type": "application/json", "x-api-key": key_value(board.admin_key_secret)},
)
wrong_class.expect(ExpectedResult.object_like({"status": 403}))
# The CORS preflight: the imported document's mock answers it, no key, no function.
preflight = integ.assertions.http_api_call(
    f"{board.api.url}leaderboards/speedrun/scores",
    method="OPTIONS",
    headers={"Origin": "https://game.example", "Access-Control-Request-Method": "POST"},
)
preflight.expect(ExpectedResult.object_like({"status": 204}))

app.synth()
