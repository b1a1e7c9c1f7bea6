"""The local gateway's throttles (local/throttles.py): API Gateway's token buckets as the template sets them, one
per method and one per API key, refilled at the rate up to the burst."""

from __future__ import annotations

from local.throttles import Limit, Throttle, from_template

TEMPLATE = {
    "Resources": {
        "ApiStage": {
            "Type": "AWS::ApiGateway::Stage",
            "Properties": {
                "MethodSettings": [
                    {"HttpMethod": "*", "ResourcePath": "/*", "ThrottlingRateLimit": 500, "ThrottlingBurstLimit": 4},
                    {
                        "HttpMethod": "POST",
                        "ResourcePath": "/~1leaderboards~1{board}~1runs~1{run_id}~1score",
                        "ThrottlingRateLimit": 2,
                        "ThrottlingBurstLimit": 2,
                    },
                    {"HttpMethod": "GET", "ResourcePath": "/~1leaderboard", "MetricsEnabled": True},  # no throttle
                ]
            },
        },
        "ApiRestApiGamePlan1234": {
            "Type": "AWS::ApiGateway::UsagePlan",
            "Properties": {"Throttle": {"RateLimit": 1, "BurstLimit": 3}},
        },
        "ApiRestApiAdminPlan5678": {"Type": "AWS::ApiGateway::UsagePlan", "Properties": {}},
    }
}
RUN = ("POST", "/leaderboards/{board}/runs/{run_id}/score")
GAME = ("POST", "/leaderboards/{board}/scores")


def _throttle(now: list[float]) -> Throttle:
    throttles = from_template(TEMPLATE, {"game": "GamePlan", "admin": "AdminPlan"})
    return Throttle(throttles, clock=lambda: now[0])


def test_the_template_gives_each_method_its_setting_or_the_stages_default_and_each_plan_its_throttle():
    throttles = from_template(TEMPLATE, {"game": "GamePlan", "admin": "AdminPlan"})
    assert throttles.method_limit(*RUN) == Limit(2, 2)
    assert throttles.method_limit(*GAME) == Limit(500, 4)  # the stage's default
    assert throttles.method_limit("GET", "/leaderboard") == Limit(500, 4)  # a setting without a throttle
    assert throttles.plans == {"game": Limit(1, 3)}  # a plan without a throttle meters nothing


def test_each_method_has_its_own_bucket_refilled_at_its_rate():
    now = [0.0]
    throttle = _throttle(now)
    assert [throttle.admit(*RUN) for _ in range(3)] == [True, True, False]  # the burst, then 429
    assert all(throttle.admit(*GAME) for _ in range(4))  # another method: its own, full bucket
    now[0] += 0.5  # 2 tokens/s: one token back
    assert [throttle.admit(*RUN) for _ in range(2)] == [True, False]
    now[0] += 60  # never more than the burst
    assert [throttle.admit(*RUN) for _ in range(3)] == [True, True, False]


def test_a_keys_plan_bucket_is_taken_first_and_is_per_key():
    now = [0.0]
    throttle = _throttle(now)
    assert [throttle.admit(*GAME, "key-1", "game") for _ in range(4)] == [True, True, True, False]  # plan: 3
    assert throttle.admit(*GAME, "key-2", "game")  # another key of the plan: its own bucket (the method's 4th)
    assert not throttle.admit(*GAME, "key-3", "game")  # the method's bucket is empty now: all callers share it
    assert throttle.admit("POST", "/leaderboards", "admin-1", "admin")  # a plan without a throttle: the method's
