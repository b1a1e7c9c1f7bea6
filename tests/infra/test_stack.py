"""Fine-grained template assertions: one concern per test."""

from __future__ import annotations

import json
import re

from aws_cdk.assertions import Match

from cdk_leaderboard_lambda.shared import schema
from cdk_leaderboard_lambda.web import routes
from tests.support import deployed_api, role_access


def resources(template, type_: str) -> dict:
    return template.find_resources(type_)


def test_every_function_shares_one_role(template):
    """The original five functions, leaderboard-admin, rank-counter, period-closer, the live broadcaster and the
    Event API's authorizer run under one hand-written execution role."""
    functions = resources(template, "AWS::Lambda::Function")
    assert len(functions) == len(routes.FUNCTIONS) == 10
    roles = {json.dumps(f["Properties"]["Role"]) for f in functions.values()}
    assert len(roles) == 1
    role_id = next(iter(functions.values()))["Properties"]["Role"]["Fn::GetAtt"][0]
    role = template.to_json()["Resources"][role_id]
    assert role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
        "Service": "lambda.amazonaws.com"
    }
    assert "ManagedPolicyArns" not in role["Properties"]


def test_functions_are_arm64_python314_json_logs_with_own_log_groups(template):
    """Runtime, architecture, JSON logging, and an explicit log group per function."""
    functions = resources(template, "AWS::Lambda::Function").values()
    handlers = sorted(f["Properties"]["Handler"] for f in functions)
    assert handlers == sorted(f.handler for f in routes.FUNCTIONS)
    for f in functions:
        p = f["Properties"]
        assert p["Runtime"] == "python3.14"
        assert p["Architectures"] == ["arm64"]
        assert p["LoggingConfig"]["LogFormat"] == "JSON"
        assert "Ref" in p["LoggingConfig"]["LogGroup"]
        assert "FunctionName" not in p  # generated: stages deploy side by side
    # One code asset for all five.
    assert len({json.dumps(f["Properties"]["Code"]) for f in functions}) == 1


def test_shared_role_is_least_privilege(template):
    """Exactly the actions used, on the tables and the rank index by ARN; '*' only for X-Ray. The keys and the
    snapshot archive's changes are granted per function (a scoped policy: tests/infra/test_function_access.py)."""
    statements = role_access.by_sid(template.to_json())
    assert set(statements) == {
        "ScoresReadWrite",
        "RankIndexQuery",
        "ScoresStreamRead",
        "OwnLogGroups",
        "DigestKeyRead",
        "XRayTraces",
        "LivePublish",  # appsync:EventPublish on the live namespace (tests/infra/test_live.py)
        "LiveKeyRenewal",  # appsync:UpdateApiKey on the live subscribe key (tests/infra/test_live.py)
        "FailuresSend",  # sqs:SendMessage on the rank counter's dead-letter queue (tests/infra/test_review.py)
        "BroadcasterFailuresSend",  # and on the live broadcaster's
        "PeriodClosedEvents",  # events:PutEvents on the season's bus (test_season.py)
        # scoped to the functions that need them (function_access.py); production adds ReceiptKeyRead
        "TokenKeyRead",
        "CursorKeyRead",  # outside production on the token secret, whose versions the cursor keys derive from
        "GameKeyRead",
        "AdminKeyRead",
        "SnapshotsAppend",
        "SnapshotsRead",
        "SnapshotsErasure",
        "ScoresNoWriteByPublicReads",  # a Deny: the scores table's writes, for the public read functions
    }
    assert sorted(statements["ScoresReadWrite"]["Action"]) == [
        "dynamodb:BatchGetItem",
        "dynamodb:BatchWriteItem",
        "dynamodb:DeleteItem",
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
    ]
    assert statements["RankIndexQuery"]["Action"] == "dynamodb:Query"
    index_arn = json.dumps(statements["RankIndexQuery"]["Resource"])
    assert f"/index/{schema.RANK_INDEX}" in index_arn and "index/*" not in index_arn
    assert (statements["SnapshotsAppend"]["Action"], statements["SnapshotsRead"]["Action"]) == (
        "dynamodb:PutItem",
        "dynamodb:Query",
    )
    # erasure: scan the snapshot archive in steps and rewrite the snapshots naming the erased player
    assert sorted(statements["SnapshotsErasure"]["Action"]) == ["dynamodb:Scan", "dynamodb:UpdateItem"]
    assert statements["SnapshotsErasure"]["Resource"] == statements["SnapshotsAppend"]["Resource"]
    stream = statements["ScoresStreamRead"]
    assert sorted(stream["Action"]) == [
        "dynamodb:DescribeStream",
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "dynamodb:ListStreams",
    ]
    assert stream["Resource"]["Fn::GetAtt"][1] == "StreamArn"  # this table's stream, not stream/*
    assert len(statements["OwnLogGroups"]["Resource"]) == len(routes.FUNCTIONS)
    for sid, s in statements.items():
        actions = s["Action"] if isinstance(s["Action"], list) else [s["Action"]]
        assert not any(a.endswith("*") for a in actions), sid
        if sid == "LiveKeyRenewal":  # no resource type for UpdateApiKey: "*", for the renewing function only
            assert set(s["Condition"]["ArnEquals"]) == {"lambda:SourceFunctionArn"}, sid
        elif sid != "XRayTraces":
            assert s["Resource"] != "*", sid
    # No extra policies attached to the role by CDK; the one written by hand for the closings' events is tested in
    # test_season.py, the scoped one in test_function_access.py.
    for logical_id, policy in resources(template, "AWS::IAM::Policy").items():
        if logical_id.startswith(("LeaderboardSeasonPutEvents", "LeaderboardApiFunctionScopedPolicy")):
            continue
        assert "FunctionRole" not in json.dumps(policy["Properties"]["Roles"])


def test_scores_table_keys_gsi_ttl_pitr(template):
    """player_id/leaderboard_id keys, the rank index, TTL, PITR, on-demand, generated name."""
    template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "KeySchema": [
                {"AttributeName": "player_id", "KeyType": "HASH"},
                {"AttributeName": "leaderboard_id", "KeyType": "RANGE"},
            ],
            "BillingMode": "PAY_PER_REQUEST",
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            "TimeToLiveSpecification": {"AttributeName": "expires_at", "Enabled": True},
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "leaderboard-rank-index",
                    "KeySchema": [
                        {"AttributeName": "leaderboard_id", "KeyType": "HASH"},
                        {"AttributeName": "rank_key", "KeyType": "RANGE"},
                    ],
                    "Projection": {
                        "ProjectionType": "INCLUDE",
                        "NonKeyAttributes": ["score", "player_name", "metadata", "reached_at"],
                    },
                }
            ],
        },
    )
    for table in resources(template, "AWS::DynamoDB::Table").values():
        assert "TableName" not in table["Properties"]


def test_scores_table_streams_old_and_new_images_to_the_rank_counter(template):
    """Every change of the scores table reaches the rank-counter function, entries only."""
    (scores,) = [
        t for t in resources(template, "AWS::DynamoDB::Table").values() if "StreamSpecification" in t["Properties"]
    ]
    assert scores["Properties"]["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
    functions = resources(template, "AWS::Lambda::Function")
    mappings = {
        functions[m["Properties"]["FunctionName"]["Ref"]]["Properties"]["Handler"]: m
        for m in resources(template, "AWS::Lambda::EventSourceMapping").values()
    }
    # two readers of the stream (a shard serves two at once): the rank counter, and live updates' broadcaster
    assert set(mappings) == {routes.RANK_COUNTER.handler, routes.LIVE_BROADCASTER.handler}
    p = mappings[routes.RANK_COUNTER.handler]["Properties"]
    assert p["EventSourceArn"]["Fn::GetAtt"][1] == "StreamArn"
    assert p["StartingPosition"] == "TRIM_HORIZON"  # nothing written before the mapping exists is left uncounted
    # A failing batch is halved and retried, then given up: recounts heal later, a stuck shard would not.
    assert (p["BisectBatchOnFunctionError"], p["MaximumRetryAttempts"], p["MaximumRecordAgeInSeconds"]) == (
        True,
        10,
        3600,
    )
    patterns = [json.loads(f["Pattern"]) for f in p["FilterCriteria"]["Filters"]]
    # entries only, listed or a hidden player's; at most five patterns per mapping (Lambda's default quota)
    assert sorted(patterns, key=json.dumps) == sorted(
        (
            {"dynamodb": {image: {attribute: {"S": [{"exists": True}]}}}}
            for image in ("NewImage", "OldImage")
            for attribute in (schema.RANK_INDEX_SORT_KEY, schema.HIDDEN_RANK_KEY)
        ),
        key=json.dumps,
    )
    assert len(patterns) <= 5


def test_snapshots_table_is_queryable_by_board_newest_first(template):
    """Snapshots are keyed board + timestamp, so listing one board is a Query."""
    template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "KeySchema": [
                {"AttributeName": "leaderboard_id", "KeyType": "HASH"},
                {"AttributeName": "taken_at", "KeyType": "RANGE"},
            ],
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
        },
    )


def _methods(template) -> dict[tuple[str, str], dict]:
    """(path, METHOD) -> operation of the deployed definition (the RestApi's imported body)."""
    return deployed_api.methods(template.to_json())


def test_the_api_is_one_imported_document_and_no_resource_per_route(template):
    """The routes live in the REST API's body (mode overwrite: a route taken out leaves the API): no Resource,
    Method, Model, RequestValidator or GatewayResponse resources, whatever the number of routes."""
    (api,) = resources(template, "AWS::ApiGateway::RestApi").values()
    assert api["Properties"]["Mode"] == "overwrite"
    assert api["Properties"]["Body"]["openapi"].startswith("3.0")
    for kind in ("Resource", "Method", "Model", "RequestValidator", "GatewayResponse"):
        template.resource_count_is(f"AWS::ApiGateway::{kind}", 0)


def test_every_route_has_method_and_options_preflight(template):
    """Each route of the table exists, and each path answers OPTIONS without a key."""
    methods = _methods(template)
    for route in routes.ROUTES:
        assert (route.path, route.method) in methods, route
        options = methods[(route.path, "OPTIONS")]
        assert not deployed_api.needs_key(options)
        assert options["x-amazon-apigateway-integration"]["type"] == "mock"
        headers = deployed_api.mock_answer(options)["responseParameters"]
        assert "method.response.header.Access-Control-Allow-Origin" in headers


def test_each_function_behind_the_rest_api_may_be_invoked_by_its_stage_alone(template):
    """One permission per function (not one per method), for this API's stage only; each method's proxy
    integration invokes the function of its route."""
    res = template.to_json()["Resources"]
    functions = {lid: r["Properties"]["Handler"] for lid, r in res.items() if r["Type"] == "AWS::Lambda::Function"}
    rest_api, stage = resources(template, "AWS::ApiGateway::RestApi"), resources(template, "AWS::ApiGateway::Stage")
    invokes: dict[str, list] = {}
    for p in resources(template, "AWS::Lambda::Permission").values():
        arn = json.dumps(p["Properties"].get("SourceArn"))
        if p["Properties"]["Principal"] == "apigateway.amazonaws.com" and next(iter(rest_api)) in arn:
            invokes.setdefault(p["Properties"]["FunctionName"]["Fn::GetAtt"][0], []).append(arn)
    behind_api = {lid for lid, handler in functions.items() if handler in {r.function.handler for r in routes.ROUTES}}
    assert set(invokes) == behind_api
    for arns in invokes.values():
        (arn,) = arns
        assert arn.endswith(f'"/", {{"Ref": "{next(iter(stage))}"}}, "/*/*"]]}}'), arn
    proxied = 0
    for (path, method), op in _methods(template).items():
        target = deployed_api.integration_target(op)
        if target is not None:
            route = next(r for r in routes.ROUTES if (r.path, r.method) == (path, method))
            assert functions[target] == route.function.handler, (path, method)
            proxied += 1
    assert proxied == len(routes.ROUTES)


def test_api_key_on_writes_and_admin_reads_only(template):
    """Write routes (POST, PUT, DELETE) need a key, and so do the reads for operators (admin key); public reads,
    preflights and 405 answers do not, nor the bearer routes (players' devices hold no key: the function checks
    their bearer token). The game servers' score route does: a run token has its own route."""
    by_route = {(r.path, r.method): r for r in routes.ROUTES}
    token_routes = {(r.path, r.method) for r in routes.ROUTES if r.access in routes.BEARER}
    assert token_routes == {
        ("/leaderboards/{board}/runs", "POST"),
        ("/leaderboards/{board}/runs/{run_id}/score", "POST"),
        ("/players/{player_id}", "GET"),  # a player's own held scores
        ("/leaderboards/{board}/players/{player_id}/receipt", "GET"),  # a player's own receipt
    }
    assert by_route[("/leaderboards/{board}/scores", "POST")].needs_key
    seen = 0
    for (path, method), op in _methods(template).items():
        needs_key = deployed_api.needs_key(op)
        route = by_route.get((path, method))
        writes = method in ("POST", "PUT", "DELETE") and (path, method) not in token_routes
        assert needs_key == (route is not None and (writes or route.access == routes.ADMIN)), (path, method)
        seen += needs_key
    assert seen == sum(r.needs_key for r in routes.ROUTES)
    schemes = deployed_api.definition(template.to_json())["components"]["securitySchemes"]
    assert schemes == {"api_key": {"type": "apiKey", "name": "x-api-key", "in": "header"}}


def test_request_validation_on_routes(template):
    """Bodies of POST routes are validated by a model; required query parameters (/player's player_id) are the
    function's to check (a 400 naming them), not API Gateway's: its parameter check answers 401 (below)."""
    body = deployed_api.definition(template.to_json())
    (validator,) = body["x-amazon-apigateway-request-validators"].values()
    assert validator == {"validateRequestBody": True, "validateRequestParameters": True}
    methods = _methods(template)
    for route in routes.ROUTES:
        op = methods[(route.path, route.method)]
        assert op["x-amazon-apigateway-request-validator"] in body["x-amazon-apigateway-request-validators"]
        if route.body_schema:
            ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            assert ref.removeprefix("#/components/schemas/") in body["components"]["schemas"]
    assert not [p for p in methods[("/player", "GET")].get("parameters", []) if p["in"] == "query"]
    # one model per body: the two score routes (game key, run token) share theirs
    assert len(body["components"]["schemas"]) == len({id(r.body) for r in routes.ROUTES if r.body})


def test_the_bearer_routes_require_the_authorization_header_at_api_gateway(template):
    """A request to a bearer route (run start, run-token score, receipt, held scores) without `Authorization` is
    API Gateway's 401 with `WWW-Authenticate: Bearer` (its parameter check's response) and invokes nothing. That
    header is the only request parameter API Gateway requires anywhere, besides the path's own, so its response to a
    missing one always means "no credential"."""
    methods = _methods(template)
    required = {h for op in methods.values() for h in deployed_api.required_headers(op)}
    assert required == {"Authorization"}
    for op in methods.values():
        assert {p["in"] for p in op.get("parameters", []) if p.get("required")} <= {"path", "header"}
    response = deployed_api.definition(template.to_json())["x-amazon-apigateway-gateway-responses"][
        "BAD_REQUEST_PARAMETERS"
    ]
    assert response["statusCode"] == 401
    assert response["responseParameters"]["gatewayresponse.header.WWW-Authenticate"] == "'Bearer'"
    for route in routes.ROUTES:
        headers = set(deployed_api.required_headers(methods[(route.path, route.method)]))
        assert headers == ({"Authorization"} if route.access in routes.BEARER else set()), route.path


def test_gateway_errors_are_json_with_cors(template):
    """Key, route and throttle errors are JSON {"error"} and carry CORS headers."""
    by_type = deployed_api.definition(template.to_json())["x-amazon-apigateway-gateway-responses"]
    assert by_type["INVALID_API_KEY"]["statusCode"] == 403
    assert by_type["MISSING_AUTHENTICATION_TOKEN"]["statusCode"] == 404
    assert {"DEFAULT_4XX", "DEFAULT_5XX"} <= set(by_type)
    for props in by_type.values():
        assert "gatewayresponse.header.Access-Control-Allow-Origin" in props["responseParameters"]
        assert '"error"' in props["responseTemplates"]["application/json"]


def test_stage_has_access_logs_throttling_and_tracing(template):
    template.has_resource_properties(
        "AWS::ApiGateway::Stage",
        {
            "AccessLogSetting": {"DestinationArn": Match.any_value(), "Format": Match.string_like_regexp("requestId")},
            "TracingEnabled": True,
            "MethodSettings": Match.array_with(
                [Match.object_like({"ThrottlingRateLimit": 500, "ThrottlingBurstLimit": 1000})]
            ),
        },
    )


def test_api_key_values_are_never_plain_text(template):
    """Both keys come from Secrets Manager through dynamic references, each from its own secret."""
    keys = resources(template, "AWS::ApiGateway::ApiKey").values()
    values = [json.dumps(key["Properties"]["Value"]) for key in keys]
    assert len(values) == 2 and all("{{resolve:secretsmanager:" in v for v in values)
    secrets = {re.search(r'"Ref": "(\w+)"', v).group(1) for v in values}
    assert len(secrets) == 2
    template.resource_count_is("AWS::ApiGateway::UsagePlanKey", 2)


def test_instance_requires_imdsv2_and_encrypts_ebs(template):
    template.has_resource_properties(
        "AWS::EC2::LaunchTemplate",
        {"LaunchTemplateData": {"MetadataOptions": {"HttpTokens": "required"}}},
    )
    template.has_resource_properties(
        "AWS::EC2::Instance",
        {
            "InstanceType": "t4g.nano",
            "BlockDeviceMappings": [Match.object_like({"Ebs": Match.object_like({"Encrypted": True})})],
        },
    )
    instance = next(iter(resources(template, "AWS::EC2::Instance").values()))
    assert "KeyName" not in instance["Properties"]


def test_image_is_latest_al2023_default_kernel_from_public_ssm_parameter(dev_template_json):
    """The default-kernel parameter: the kernel-6.1 one stops being updated at that kernel's end of support. EC2
    resolves it at launch, not CloudFormation at every deploy (a new AMI would replace the instance under its VPC
    origin: tests/infra/test_updates.py), so no SSM-typed template parameter names it."""
    (instance,) = [r for r in dev_template_json["Resources"].values() if r["Type"] == "AWS::EC2::Instance"]
    assert (
        instance["Properties"]["ImageId"]
        == "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-arm64"
    )
    defaults = [p.get("Default", "") for p in dev_template_json["Parameters"].values()]
    assert not [d for d in defaults if d.startswith("/aws/service/ami-amazon-linux-latest/")]


def test_no_nat_gateway_and_public_subnets_only(template):
    template.resource_count_is("AWS::EC2::NatGateway", 0)
    for subnet in resources(template, "AWS::EC2::Subnet").values():
        assert subnet["Properties"]["MapPublicIpOnLaunch"] is True


def test_security_group_opens_port_80_to_cloudfront_only(template):
    """The only way in is port 80 from CloudFront's origin-facing prefix list: no CIDR, no port 22."""
    (sg,) = resources(template, "AWS::EC2::SecurityGroup").values()
    assert "SecurityGroupIngress" not in sg["Properties"]
    (rule,) = resources(template, "AWS::EC2::SecurityGroupIngress").values()
    props = rule["Properties"]
    assert (props["IpProtocol"], props["FromPort"], props["ToPort"]) == ("tcp", 80, 80)
    assert "CidrIp" not in props and "CidrIpv6" not in props
    assert props["SourcePrefixListId"]["Fn::FindInMap"][1] == {"Ref": "AWS::Region"}


def _user_data(template_json: dict) -> str:
    (lt,) = [r for r in template_json["Resources"].values() if r["Type"] == "AWS::EC2::Instance"]
    joined = lt["Properties"]["UserData"]["Fn::Base64"]
    parts = joined["Fn::Join"][1] if isinstance(joined, dict) else [joined]
    return "".join(p if isinstance(p, str) else "<token>" for p in parts)


def test_user_data_fetches_the_boot_from_the_site_asset_and_stays_small(dev_template_json):
    """User data fetches the site asset and runs its boot script, so it stays far below EC2's 16 KB."""
    text = _user_data(dev_template_json)
    assert "aws s3 cp" in text and "/opt/leaderboard/boot/first-boot.sh" in text
    assert len(text.encode()) < 4 * 1024


def test_user_data_holds_no_secret_values(dev_template_json):
    """The instance reads the key and password at boot; the template holds only their ARNs."""
    text = _user_data(dev_template_json)
    assert "ADMIN_KEY_SECRET_ARN=" in text and "ADMIN_PASSWORD_SECRET_ARN=" in text
    assert not re.search(r"[A-Za-z0-9]{40}", re.sub(r"Instance[0-9A-Fa-f]{24}", "", text.replace("<token>", "")))


def test_outputs_have_stable_logical_ids(template):
    """Scripts (`python -m ops`) find the stack's parts by these output names."""
    outputs = template.to_json()["Outputs"]
    for name in (
        "ApiUrl",
        "DashboardUrl",
        "ScoresTableName",
        "SnapshotsTableName",
        "GameKeySecretArn",
        "AdminKeySecretArn",
        "TokenSigningSecretArn",
        "GameUsagePlanId",
        "AdminUsagePlanId",
        "DashboardPasswordSecretArn",
        "DashboardInstanceId",
    ):
        assert name in outputs, name


def test_dev_allows_any_origin_and_enables_simulator(dev_template_json):
    env = next(r for r in dev_template_json["Resources"].values() if r["Type"] == "AWS::Lambda::Function")
    variables = env["Properties"]["Environment"]["Variables"]
    assert variables["CORS_ALLOWED_ORIGINS"] == "*"
    assert variables["ENABLE_SIMULATOR"] == "true"


def test_prod_disables_simulator_and_allows_any_origin_without_a_domain(prod_template_json):
    """In prod the simulator is off and data is retained. CORS: without a domain_name the dashboard's origin is
    CloudFront's name, which exists only after the instance that needs the API, so the default is "*" (it was the
    distribution's https:// name while the distribution came first, over the internet to an Elastic IP); the API's
    protection is its keys, no browser sends them unasked, and there are no cookies. With a domain_name prod allows
    only https://<domain_name> (test_review.py)."""
    fn = next(r for r in prod_template_json["Resources"].values() if r["Type"] == "AWS::Lambda::Function")
    variables = fn["Properties"]["Environment"]["Variables"]
    assert variables["ENABLE_SIMULATOR"] == "false"
    assert variables["CORS_ALLOWED_ORIGINS"] == "*"
    for table in (r for r in prod_template_json["Resources"].values() if r["Type"] == "AWS::DynamoDB::Table"):
        assert table["DeletionPolicy"] == "RetainExceptOnCreate"
        assert table["Properties"]["DeletionProtectionEnabled"] is True


def test_two_stages_do_not_collide(dev_template_json, prod_template_json):
    """No hard-coded physical names: both stages can live in one account."""
    named = {
        "AWS::DynamoDB::Table": "TableName",
        "AWS::Lambda::Function": "FunctionName",
        "AWS::Logs::LogGroup": "LogGroupName",
        "AWS::SecretsManager::Secret": "Name",
    }
    for t in (dev_template_json, prod_template_json):
        for r in t["Resources"].values():
            if r["Type"] in named:
                assert named[r["Type"]] not in r["Properties"], r["Type"]
    dev_api = next(r for r in dev_template_json["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi")
    prod_api = next(r for r in prod_template_json["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi")
    assert dev_api["Properties"]["Name"] != prod_api["Properties"]["Name"]


def test_powertools_layer_comes_from_public_ssm_parameter_at_pinned_version(dev_template_json):
    """The layer ARN resolves at deploy time (no bundling, no Docker) and matches the tested version."""
    from pathlib import Path

    from cdk_leaderboard.api import POWERTOOLS_LAYER_PARAMETER, POWERTOOLS_VERSION

    pinned = Path(__file__).resolve().parents[2].joinpath("requirements-dev.txt").read_text()
    assert f"aws-lambda-powertools=={POWERTOOLS_VERSION}" in pinned
    params = dev_template_json["Parameters"]
    (param_id,) = [k for k, p in params.items() if p.get("Default") == POWERTOOLS_LAYER_PARAMETER]
    for fn in (r for r in dev_template_json["Resources"].values() if r["Type"] == "AWS::Lambda::Function"):
        assert fn["Properties"]["Layers"] == [{"Ref": param_id}]


def test_undeclared_methods_answer_405_with_the_allowed_methods(template):
    """ANY on each route's path is a mock 405 whose Allow header lists what the path does take (as locally)."""
    mocks = [op for (_, method), op in _methods(template).items() if method == "ANY"]
    assert len(mocks) == len({r.path for r in routes.ROUTES})
    allows = set()
    for mock in mocks:
        answer = deployed_api.mock_answer(mock)
        assert answer["statusCode"] == "405"
        allows.add(answer["responseParameters"]["method.response.header.Allow"])
        (declared,) = mock["responses"].values()
        assert "Allow" in declared["headers"]
    expected = {
        "'" + ", ".join(sorted({r.method for r in routes.ROUTES if r.path == path} | {"OPTIONS"})) + "'"
        for path in {r.path for r in routes.ROUTES}
    }
    assert allows == expected


def _nginx_log_groups(template_json: dict) -> dict:
    return {
        kind: [r for lid, r in template_json["Resources"].items() if f"DashboardNginx{kind}Logs" in lid]
        for kind in ("Access", "Error")
    }


def _instance_role_statements(template_json: dict) -> list[dict]:
    res = template_json["Resources"]
    ((instance,),) = [[r for r in res.values() if r["Type"] == "AWS::EC2::Instance"]]
    profile = res[instance["Properties"]["IamInstanceProfile"]["Ref"]]
    (role_ref,) = profile["Properties"]["Roles"]
    policies = [r for r in res.values() if r["Type"] == "AWS::IAM::Policy" and role_ref in r["Properties"]["Roles"]]
    return [s for p in policies for s in p["Properties"]["PolicyDocument"]["Statement"]]


def test_nginx_logs_have_two_log_groups_with_the_stages_retention(dev_template_json, prod_template_json):
    """Nginx's access and error logs outlive the instance in two log groups (the CloudWatch agent writes them,
    dashboard_ec2/boot/first-boot.sh) with the stage's retention, retained in prod except on a first create."""
    for template_json, policy in ((dev_template_json, "Delete"), (prod_template_json, "RetainExceptOnCreate")):
        groups = _nginx_log_groups(template_json)
        assert [len(g) for g in groups.values()] == [1, 1]
        stage_retention = {
            r["Properties"]["RetentionInDays"]
            for lid, r in template_json["Resources"].items()
            if r["Type"] == "AWS::Logs::LogGroup" and "Api" in lid and "AccessLogs" in lid
        }
        assert len(stage_retention) == 1
        for (group,) in groups.values():
            assert {group["Properties"]["RetentionInDays"]} == stage_retention
            assert group["DeletionPolicy"] == policy
            assert "LogGroupName" not in group["Properties"]  # no account-wide name (tests/infra/test_names.py)


def test_the_instance_may_write_nginx_logs_to_those_two_groups_only(dev_template_json):
    """The agent's three actions, on the two groups by ARN: no CreateLogGroup, no PutRetentionPolicy, no '*'."""
    statements = [s for s in _instance_role_statements(dev_template_json) if "logs:" in json.dumps(s["Action"])]
    (statement,) = statements
    assert statement["Sid"] == "NginxLogsWrite" and statement["Effect"] == "Allow"
    assert sorted(statement["Action"]) == ["logs:CreateLogStream", "logs:DescribeLogStreams", "logs:PutLogEvents"]
    groups = [_logical_id(dev_template_json, g) for (g,) in _nginx_log_groups(dev_template_json).values()]
    assert sorted(statement["Resource"], key=json.dumps) == sorted(
        ({"Fn::GetAtt": [lid, "Arn"]} for lid in groups), key=json.dumps
    )


def _logical_id(template_json: dict, resource: dict) -> str:
    (lid,) = [k for k, r in template_json["Resources"].items() if r is resource]
    return lid


def test_the_boot_names_the_nginx_log_groups(dev_template_json):
    """The user data hands the agent the two groups' names (Refs), so the agent writes where the role allows."""
    (instance,) = [r for r in dev_template_json["Resources"].values() if r["Type"] == "AWS::EC2::Instance"]
    user_data = json.dumps(instance["Properties"]["UserData"])
    for (group,) in _nginx_log_groups(dev_template_json).values():
        lid = _logical_id(dev_template_json, group)
        assert json.dumps({"Ref": lid}) in user_data
