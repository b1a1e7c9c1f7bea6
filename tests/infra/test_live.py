"""Live updates: the AppSync Event API, its `leaderboard` namespace and auth modes, the subscribe-only API key,
the broadcaster's stream mapping, the shared role's publish permission (that namespace only), and nothing left of
the WebSocket API and its connections table."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import aws_cdk as cdk
import pytest
from cdk_leaderboard.props import Live

from cdk_leaderboard_lambda.shared import limits, live_channels, schema
from cdk_leaderboard_lambda.web import routes
from tests.support.cloudfront import dashboard_only


def resources(template, type_: str) -> dict:
    return template.find_resources(type_)


def _handler_of(template, function_ref: dict) -> str:
    functions = resources(template, "AWS::Lambda::Function")
    return functions[function_ref["Ref"]]["Properties"]["Handler"]


def _auth(modes: list[dict]) -> list[str]:
    return [m["AuthType"] for m in modes]


def test_one_event_api_subscribes_with_a_live_token_checked_by_a_lambda_authorizer_and_publishes_with_iam(template):
    """Connect: the Lambda authorizer (subscribers' live tokens) or IAM; subscribe: the authorizer only; publish:
    IAM only. The API key AppSync made with the API is in no mode: it admits nothing."""
    (api_id, api) = next(iter(resources(template, "AWS::AppSync::Api").items()))
    config = api["Properties"]["EventConfig"]
    assert sorted(_auth(config["AuthProviders"])) == ["API_KEY", "AWS_IAM", "AWS_LAMBDA"]
    assert sorted(_auth(config["ConnectionAuthModes"])) == ["AWS_IAM", "AWS_LAMBDA"]
    assert _auth(config["DefaultPublishAuthModes"]) == ["AWS_IAM"]
    assert _auth(config["DefaultSubscribeAuthModes"]) == ["AWS_LAMBDA"]
    assert "Name" in api["Properties"] and len(api["Properties"]["Name"]) <= 50
    assert len(resources(template, "AWS::AppSync::Api")) == 1


def test_the_authorizer_is_a_function_of_its_own_with_a_token_shape_check_and_a_cache_of_refusals(template):
    """live-authorizer, not score-submit (the function that takes game servers' scores) nor any function of the REST
    API: a string on a live connect invokes only it, and only when it is shaped like a live token
    (IdentityValidationExpression: AppSync refuses anything else without a call). AuthorizerResultTtlInSeconds is a
    token's life: the function answers an admission with ttlOverride 0 (every connect and subscribe of a token is
    counted), so only refusals are cached, and a string refused once is never worth admitting within its life.
    AppSync may invoke it on behalf of this API only (SourceArn)."""
    (api_id, api) = next(iter(resources(template, "AWS::AppSync::Api").items()))
    (provider,) = [p for p in api["Properties"]["EventConfig"]["AuthProviders"] if p["AuthType"] == "AWS_LAMBDA"]
    config = provider["LambdaAuthorizerConfig"]
    authorizer = _function_id(template, routes.LIVE_AUTHORIZER.handler)
    assert authorizer != _function_id(template, routes.SCORE_SUBMIT.handler)
    assert not any(r.function == routes.LIVE_AUTHORIZER for r in routes.ROUTES)  # it serves no REST route
    assert config["AuthorizerUri"] == {"Fn::GetAtt": [authorizer, "Arn"]}
    assert config["IdentityValidationExpression"] == limits.LIVE_TOKEN_PATTERN
    assert 0 < config["AuthorizerResultTtlInSeconds"] == limits.LIVE_AUTHORIZER_CACHE_SECONDS
    assert limits.LIVE_AUTHORIZER_CACHE_SECONDS <= limits.LIVE_TOKEN_SECONDS
    (permission,) = [
        r["Properties"]
        for r in resources(template, "AWS::Lambda::Permission").values()
        if r["Properties"].get("Principal") == "appsync.amazonaws.com"
    ]
    assert permission["FunctionName"] == {"Fn::GetAtt": [authorizer, "Arn"]}
    assert permission["SourceArn"] == {"Fn::GetAtt": [api_id, "ApiArn"]}
    function = resources(template, "AWS::Lambda::Function")[authorizer]["Properties"]
    assert function["Timeout"] == routes.LIVE_AUTHORIZER.timeout_seconds
    submit = resources(template, "AWS::Lambda::Function")[_function_id(template, routes.SCORE_SUBMIT.handler)]
    assert submit["Properties"]["Environment"]["Variables"]["LIVE_TOKENS"] == "1"  # it hands out the tokens


def test_the_token_shape_admits_every_live_token_and_refuses_junk():
    """The expression AppSync applies (a JWS: eyJ header, eyJ payload, a 43-character HS256 signature)."""
    import re

    shape = re.compile(limits.LIVE_TOKEN_PATTERN)
    header, payload = "eyJhbGciOiJIUzI1NiJ9", "eyJzdWIiOiJnbG9iYWwifQ"
    assert shape.fullmatch(f"{header}.{payload}.{'A' * 43}")
    for junk in ("x", f"{header}.{payload}", f"{header}.{payload}.{'A' * 42}", f"Bearer {header}.{payload}.{'A' * 43}"):
        assert not shape.fullmatch(junk), junk
    assert len(f"{'e' * 403}.{'e' * 1203}.{'A' * 43}") <= limits.MAX_TOKEN_CHARS


def test_production_s_event_api_has_a_web_acl_with_a_rate_rule_on_connects(prod_template_json, dev_template_json):
    """AWS WAF on the Event API (production, like the REST API's: Live(waf=...)): one web ACL associated with the
    Event API's ARN, blocking an address past Live(connects_per_5_minutes_per_ip) requests to the WebSocket endpoint
    in 5 minutes (publishes on /event are not counted). None in dev (a web ACL's monthly fee)."""
    prod = cdk.assertions.Template.from_json(prod_template_json)
    (api_id,) = resources(prod, "AWS::AppSync::Api")
    associations = [
        a["Properties"]
        for a in resources(prod, "AWS::WAFv2::WebACLAssociation").values()
        if a["Properties"]["ResourceArn"] == {"Fn::GetAtt": [api_id, "ApiArn"]}
    ]
    (association,) = associations
    acl_id = association["WebACLArn"]["Fn::GetAtt"][0]
    acl = prod_template_json["Resources"][acl_id]["Properties"]
    assert acl["Scope"] == "REGIONAL" and acl["DefaultAction"] == {"Allow": {}}
    (rule,) = acl["Rules"]
    assert rule["Action"] == {"Block": {}}
    rate = rule["Statement"]["RateBasedStatement"]
    assert rate["AggregateKeyType"] == "IP" and rate["EvaluationWindowSec"] == 300
    assert rate["Limit"] == Live().connects_per_5_minutes_per_ip
    match = rate["ScopeDownStatement"]["ByteMatchStatement"]
    assert match["FieldToMatch"] == {"UriPath": {}} and match["PositionalConstraint"] == "STARTS_WITH"
    assert match["SearchString"] == "/event/realtime"
    dev = cdk.assertions.Template.from_json(dev_template_json)
    (dev_api,) = resources(dev, "AWS::AppSync::Api")
    assert not [
        a
        for a in resources(dev, "AWS::WAFv2::WebACLAssociation").values()
        if a["Properties"]["ResourceArn"] == {"Fn::GetAtt": [dev_api, "ApiArn"]}
    ]


def test_no_function_is_given_the_api_key_value(template, custom_template_json):
    """Discovery hands out no key any more: no function's environment holds the key's value."""
    for tpl in (template.to_json(), custom_template_json):
        for r in tpl["Resources"].values():
            if r["Type"] == "AWS::Lambda::Function":
                assert "LIVE_EVENTS_API_KEY" not in r["Properties"]["Environment"]["Variables"]


def test_the_leaderboard_namespace_takes_publishes_signed_with_iam_and_subscriptions_with_a_live_token(template):
    (namespace,) = resources(template, "AWS::AppSync::ChannelNamespace").values()
    p = namespace["Properties"]
    assert p["Name"] == live_channels.NAMESPACE == "leaderboard"
    assert _auth(p["PublishAuthModes"]) == ["AWS_IAM"]  # a subscriber cannot publish
    assert _auth(p["SubscribeAuthModes"]) == ["AWS_LAMBDA"]
    assert "CodeHandlers" not in p and not p.get("HandlerConfigs")  # no handler: events pass as published


def test_the_subscribe_key_has_no_expiry_in_the_template(template, custom_template_json):
    """No Expires at all, whatever the props (the custom stage's too): AppSync gives a new key 7 days from
    its creation and the scheduled renewal takes it from there, so the template is the same on every day and
    deploys on any of them (a fixed date failed once it was over 365 days ahead or in the past)."""
    for tpl in (template.to_json(), custom_template_json):
        keys = [r for r in tpl["Resources"].values() if r["Type"] == "AWS::AppSync::ApiKey"]
        (key,) = keys
        assert "Expires" not in key["Properties"]
        assert key["Properties"]["ApiId"]["Fn::GetAtt"][1] == "ApiId"


def test_the_template_deploys_a_live_key_two_years_from_now(template):
    """With the clock at 2028-12-04 (two years after this was written) the key the template makes is within
    AppSync's 1..365-day window of that clock: it carries no expiry of its own (AppSync's 7 days from creation).
    The old template's fixed 2027-11-30 was 370 days in the past there: CreateApiKey refuses it."""
    then = datetime(2028, 12, 4, tzinfo=UTC).timestamp()
    (key,) = resources(template, "AWS::AppSync::ApiKey").values()
    expires = key["Properties"].get("Expires")
    days = 7 if expires is None else (expires - then) / 86400
    assert limits.LIVE_KEY_MIN_DAYS <= days <= limits.LIVE_KEY_MAX_DAYS


def test_a_new_generation_is_a_new_key(template, custom_template_json):
    """Live(api_key_generation=...): another logical id, so CloudFormation makes a new key and deletes the old one."""
    (dev_id,) = resources(template, "AWS::AppSync::ApiKey")
    custom = {k: r for k, r in custom_template_json["Resources"].items() if r["Type"] == "AWS::AppSync::ApiKey"}
    ((custom_id, key),) = custom.items()
    assert custom_id != dev_id and "subscribe3" in custom_id and "subscribe1" in dev_id


def _function_id(template, handler: str) -> str:
    functions = resources(template, "AWS::Lambda::Function")
    return next(k for k, f in functions.items() if f["Properties"]["Handler"] == handler)


def test_the_season_s_schedule_also_sends_the_renewal_task_to_the_period_closer(template):
    """Every CLOSE_EVERY_MINUTES, {"task": "renew-live-key"} to the period closer: a second target of the season's
    schedule (no rule or permission of its own: the stack's resource budget), not retried (the next run is minutes
    away, the key weeks from lapsing)."""
    closer = _function_id(template, routes.PERIOD_CLOSER.handler)
    (rule,) = [r["Properties"] for r in resources(template, "AWS::Events::Rule").values()]
    assert rule["ScheduleExpression"] == f"rate({limits.CLOSE_EVERY_MINUTES} minutes)"
    (target,) = [t for t in rule["Targets"] if json.loads(t.get("Input", "{}")).get("task") == "renew-live-key"]
    assert target["Arn"] == {"Fn::GetAtt": [closer, "Arn"]}
    assert json.loads(target["Input"]) == {"task": limits.RENEW_LIVE_KEY_TASK}
    assert target["RetryPolicy"]["MaximumRetryAttempts"] == 0


def test_the_period_closer_knows_which_key_to_renew(template):
    (api_id,) = resources(template, "AWS::AppSync::Api")
    (key_id,) = resources(template, "AWS::AppSync::ApiKey")
    env = resources(template, "AWS::Lambda::Function")[_function_id(template, routes.PERIOD_CLOSER.handler)][
        "Properties"
    ]["Environment"]["Variables"]
    assert env["LIVE_EVENTS_API_ID"] == {"Fn::GetAtt": [api_id, "ApiId"]}
    assert env["LIVE_EVENTS_API_KEY_ID"] == {"Fn::GetAtt": [key_id, "ApiKeyId"]}
    assert "LIVE_EVENTS_API_KEY" not in env  # the id names it; the value is discovery's


def test_the_renewal_alarm_fires_after_a_day_without_a_renewal_at_every_level(prod_template_json, dev_template_json):
    """LiveKeyDaysLeft (EMF, after each successful renewal) missing for LIVE_KEY_ALARM_HOURS is an alarm (missing
    data breaches): the key then still has about 89 days. At every monitoring level: prod's "full" and dev's
    "essential" (where it takes the alarm metric of the live broadcaster's failed batches, which heal themselves)."""
    for tpl in (prod_template_json, dev_template_json):
        alarms = [
            r["Properties"]
            for r in tpl["Resources"].values()
            if r["Type"] == "AWS::CloudWatch::Alarm" and r["Properties"].get("MetricName") == "LiveKeyDaysLeft"
        ]
        (alarm,) = alarms
        assert alarm["Namespace"] == "Leaderboard" and alarm["Statistic"] == "Minimum"
        assert alarm["Period"] == limits.LIVE_KEY_ALARM_HOURS * 3600
        assert alarm["TreatMissingData"] == "breaching"
        assert alarm["ComparisonOperator"] == "LessThanThreshold"
        assert alarm["Threshold"] == limits.LIVE_KEY_VALID_DAYS - 2
        (dimension,) = alarm["Dimensions"]
        closer = _function_id(cdk.assertions.Template.from_json(tpl), routes.PERIOD_CLOSER.handler)
        assert dimension == {"Name": "FunctionName", "Value": {"Ref": closer}}
        assert alarm["AlarmActions"] and alarm["OKActions"]


def _spend_alarms(tpl: dict) -> list[dict]:
    return [
        r["Properties"]
        for r in tpl["Resources"].values()
        if r["Type"] == "AWS::CloudWatch::Alarm"
        and r["Properties"].get("AlarmDescription", "").startswith("Live updates cost more than")
    ]


def test_the_spend_alarm_models_the_event_api_s_hourly_bill_against_the_budget(prod_template_json, dev_template_json):
    """LiveSpend: 12 x (deliveries + connects) x 1e-6 + open connections x 5 x 0.08e-6 per 5 minutes, from
    the Event API's own metrics, above Live(hourly_budget_usd) (2 USD/hour) for 3 periods in a row, notifying the
    alarm topic; "full" monitoring only (three more alarm metrics would take dev past 10 USD a month)."""
    assert _spend_alarms(dev_template_json) == []
    (api_id,) = [k for k, r in prod_template_json["Resources"].items() if r["Type"] == "AWS::AppSync::Api"]
    (alarm,) = _spend_alarms(prod_template_json)
    assert alarm["Threshold"] == 2.0 and alarm["ComparisonOperator"] == "GreaterThanThreshold"
    assert (alarm["DatapointsToAlarm"], alarm["EvaluationPeriods"]) == (3, 3)
    assert alarm["TreatMissingData"] == "notBreaching"
    (topic,) = [k for k, r in prod_template_json["Resources"].items() if r["Type"] == "AWS::SNS::Topic"]
    assert alarm["AlarmActions"] == [{"Ref": topic}] and alarm["OKActions"] == [{"Ref": topic}]
    (expression,) = [m for m in alarm["Metrics"] if "Expression" in m]
    assert expression["Expression"] == "12 * ((delivered + connects) * 1e-06 + open * 5 * 8e-08)"
    read = {
        m["Id"]: (m["MetricStat"]["Metric"]["MetricName"], m["MetricStat"]["Stat"], m["MetricStat"]["Period"])
        for m in alarm["Metrics"]
        if "MetricStat" in m
    }
    assert read == {
        "delivered": ("PublishDataMessageSuccess", "Sum", 300),
        "connects": ("ConnectSuccess", "Sum", 300),
        "open": ("ActiveConnections", "Average", 300),
    }
    for m in alarm["Metrics"]:
        if "MetricStat" in m:
            dimensions = {d["Name"]: d["Value"] for d in m["MetricStat"]["Metric"]["Dimensions"]}
            assert dimensions == {
                "EventAPIId": {"Fn::GetAtt": [api_id, "ApiId"]},
                "ChannelNamespaceName": live_channels.NAMESPACE,
            }


def test_the_spend_budget_must_be_a_positive_number():
    for bad in (0, -1, True, "2"):
        with pytest.raises(ValueError, match="hourly_budget_usd"):
            Live(hourly_budget_usd=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"api_key_generation": 0}, "live api_key_generation"),
        ({"api_key_generation": True}, "live api_key_generation"),
    ],
)
def test_a_bad_live_key_generation_fails_at_synth(fields, says):
    with pytest.raises(ValueError, match=says):
        Live(**fields)


def test_broadcaster_reads_the_scores_stream_from_now_on_entries_only(template):
    mappings = [
        m["Properties"]
        for m in resources(template, "AWS::Lambda::EventSourceMapping").values()
        if _handler_of(template, m["Properties"]["FunctionName"]) == routes.LIVE_BROADCASTER.handler
    ]
    (p,) = mappings
    assert p["EventSourceArn"]["Fn::GetAtt"][1] == "StreamArn"
    assert p["StartingPosition"] == "LATEST"
    assert p.get("MaximumBatchingWindowInSeconds", 0) == 0
    assert (p["MaximumRetryAttempts"], p["MaximumRecordAgeInSeconds"]) == (2, 60)
    patterns = [json.loads(f["Pattern"]) for f in p["FilterCriteria"]["Filters"]]
    assert patterns == [
        {"dynamodb": {image: {schema.RANK_INDEX_SORT_KEY: {"S": [{"exists": True}]}}}}
        for image in ("NewImage", "OldImage")
    ]


def test_the_broadcaster_knows_where_to_publish_discovery_where_to_connect_and_the_authorizer_that_live_is_on(
    template,
):
    by_handler = {
        f["Properties"]["Handler"]: f["Properties"]["Environment"]["Variables"]
        for f in resources(template, "AWS::Lambda::Function").values()
    }
    broadcaster = by_handler.pop(routes.LIVE_BROADCASTER.handler)
    discovery = by_handler.pop(routes.LEADERBOARD_ADMIN.handler)  # GET /leaderboards/{board}
    http = json.dumps(broadcaster["LIVE_EVENTS_HTTP_URL"])
    assert http.startswith('{"Fn::Join": ["", ["https://", {"Fn::GetAtt": [') and '"Dns.Http"' in http
    assert "LIVE_EVENTS_API_KEY" not in broadcaster  # it signs with IAM
    assert discovery["LIVE_EVENTS_HTTP_URL"] == broadcaster["LIVE_EVENTS_HTTP_URL"]
    realtime = json.dumps(discovery["LIVE_EVENTS_REALTIME_URL"])
    assert '"wss://"' in realtime and '"Dns.Realtime"' in realtime and realtime.endswith('"/event/realtime"]]}')
    assert "LIVE_EVENTS_API_KEY" not in discovery  # no key is handed out: a token is (live_access.py)
    assert by_handler.pop(routes.SCORE_SUBMIT.handler)["LIVE_TOKENS"] == "1"  # hands out tokens: a flag, no reference
    by_handler.pop(routes.PERIOD_CLOSER.handler)  # the key's renewal: test_the_period_closer_knows_which_key_to_renew
    for env in by_handler.values():  # nothing else gets them
        assert not {n for n in env if n.startswith("LIVE_")}


def _statements(template) -> dict[str, dict]:
    """The shared role's statements: its inline policy's and those of the policies attached to it (the live ones
    are a policy of their own: the Event API names the authorizer function, so they cannot be inline)."""
    role_id = next(iter(resources(template, "AWS::Lambda::Function").values()))["Properties"]["Role"]["Fn::GetAtt"][0]
    documents = [p["PolicyDocument"] for p in template.to_json()["Resources"][role_id]["Properties"]["Policies"]]
    documents += [
        p["Properties"]["PolicyDocument"]
        for p in resources(template, "AWS::IAM::Policy").values()
        if {"Ref": role_id} in p["Properties"]["Roles"]
    ]
    return {s["Sid"]: s for d in documents for s in d["Statement"]}


def test_shared_role_may_publish_to_the_leaderboard_namespace_only(template):
    statements = _statements(template)
    publish = statements["LivePublish"]
    assert publish["Action"] == "appsync:EventPublish"
    (api_id,) = resources(template, "AWS::AppSync::Api")
    assert publish["Resource"] == {
        "Fn::Join": [
            "",
            [
                "arn:",
                {"Ref": "AWS::Partition"},
                ":appsync:",
                {"Ref": "AWS::Region"},
                ":",
                {"Ref": "AWS::AccountId"},
                ":apis/",
                {"Fn::GetAtt": [api_id, "ApiId"]},
                "/channelNamespace/leaderboard",
            ],
        ]
    }
    appsync = [s for s in statements.values() if "appsync:" in json.dumps(s["Action"])]
    # no other AppSync action (no connect, subscribe, or key management beyond extending the one key)
    assert appsync == [publish, statements["LiveKeyRenewal"]]


def test_the_renewal_is_granted_on_the_documented_resource_form_for_the_renewing_function_only(template):
    """appsync:UpdateApiKey alone (no Create, Delete or List). The Service Authorization Reference lists no resource
    type for it, and a statement for such an action names "*" (the form AWS documents); the condition
    lambda:SourceFunctionArn narrows it to the period-closer function, evaluated: no other function may."""
    renewal = _statements(template)["LiveKeyRenewal"]
    assert renewal["Action"] == "appsync:UpdateApiKey" and renewal["Effect"] == "Allow"
    assert renewal["Resource"] == "*"
    closer = _function_id(template, routes.PERIOD_CLOSER.handler)
    assert renewal["Condition"] == {"ArnEquals": {"lambda:SourceFunctionArn": [{"Fn::GetAtt": [closer, "Arn"]}]}}
    assert "apikeys" not in json.dumps(_statements(template))  # none of the undocumented ARN forms is left


def test_nothing_is_left_of_the_websocket_api_and_its_connections_table(template):
    assert not resources(template, "AWS::ApiGatewayV2::Api") and not resources(template, "AWS::ApiGatewayV2::Stage")
    tables = resources(template, "AWS::DynamoDB::Table").values()
    assert len(tables) == 2  # scores and snapshots
    assert all("connection_id" not in json.dumps(t["Properties"]["KeySchema"]) for t in tables)
    handlers = {f["Properties"]["Handler"] for f in resources(template, "AWS::Lambda::Function").values()}
    assert not any("live_connections" in h for h in handlers)
    actions = json.dumps(_statements(template))
    assert "execute-api:ManageConnections" not in actions and "Connections" not in actions


def test_live_url_is_an_output_with_a_stable_id(template):
    outputs = template.to_json()["Outputs"]
    assert "LiveUrl" in outputs
    value = json.dumps(outputs["LiveUrl"]["Value"])
    assert '"wss://"' in value and "Dns.Realtime" in value


def test_the_dashboards_distribution_still_forwards_every_viewer_header_uncached(template):
    """Unchanged by AppSync (the dashboard's client connects to AppSync's real-time endpoint itself): CloudFront
    still forwards every viewer header to Nginx, caches nothing and allows GET."""
    (distribution,) = dashboard_only(resources(template, "AWS::CloudFront::Distribution")).values()
    behaviour = distribution["Properties"]["DistributionConfig"]["DefaultCacheBehavior"]
    assert behaviour["OriginRequestPolicyId"] == "216adef6-5c7f-47e4-b989-5492eafa07d3"  # AllViewer
    assert behaviour["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"  # CachingDisabled
    assert "GET" in behaviour["AllowedMethods"]


def test_the_dashboards_csp_names_the_realtime_endpoint_discovery_hands_out(template):
    """The page connects to the Event API's realtime endpoint itself: the instance's user data hands Nginx exactly
    the URL discovery gives browsers (its CSP's one connect-src besides the page's origin; tests/infra/
    test_first_boot.py and test_nginx_conf.py show it in the header), no other AppSync endpoint."""
    (instance,) = resources(template, "AWS::EC2::Instance").values()
    user_data = json.dumps(instance["Properties"]["UserData"])
    by_handler = {
        f["Properties"]["Handler"]: f["Properties"]["Environment"]["Variables"]
        for f in resources(template, "AWS::Lambda::Function").values()
    }
    realtime = json.dumps(by_handler[routes.LEADERBOARD_ADMIN.handler]["LIVE_EVENTS_REALTIME_URL"]["Fn::Join"][1])
    (api_id,) = resources(template, "AWS::AppSync::Api")
    assert realtime == json.dumps(["wss://", {"Fn::GetAtt": [api_id, "Dns.Realtime"]}, "/event/realtime"])
    assert (
        'LIVE_REALTIME_URL=\\"wss://", {"Fn::GetAtt": ["' + api_id + '", "Dns.Realtime"]}, "/event/realtime\\"'
        in user_data
    )
    assert "Dns.Http" not in user_data
