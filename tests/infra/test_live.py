"""Live updates: the WebSocket API, its routes and stage, the connections table, the broadcaster's stream mapping
and the shared role's statements for them."""

from __future__ import annotations

import json

from leaderboard import routes, schema
from tests.support.cloudfront import dashboard_only


def resources(template, type_: str) -> dict:
    return template.find_resources(type_)


def _handler_of(template, function_ref: dict) -> str:
    functions = resources(template, "AWS::Lambda::Function")
    return functions[function_ref["Ref"]]["Properties"]["Handler"]


def test_websocket_api_selects_routes_by_action(template):
    (api,) = resources(template, "AWS::ApiGatewayV2::Api").values()
    assert api["Properties"]["ProtocolType"] == "WEBSOCKET"
    assert api["Properties"]["RouteSelectionExpression"] == "$request.body.action"
    assert "Name" in api["Properties"]  # unique per stack and construct path


def test_every_live_route_goes_to_the_live_connections_function_without_a_key(template):
    """$connect, $disconnect, subscribe, unsubscribe and $default (which answers unknown actions), each integrated
    with the live-connections function; the routes a message selects answer the client (route responses)."""
    routes_ = {
        r["Properties"]["RouteKey"]: r["Properties"] for r in resources(template, "AWS::ApiGatewayV2::Route").values()
    }
    assert (
        set(routes_) == set(routes.LIVE_ROUTES) == {"$connect", "$disconnect", "subscribe", "unsubscribe", "$default"}
    )
    integrations = resources(template, "AWS::ApiGatewayV2::Integration")
    permissions = resources(template, "AWS::Lambda::Permission")
    for key, route in routes_.items():
        assert route.get("AuthorizationType", "NONE") == "NONE", key  # reads need no key
        integration_id = route["Target"]["Fn::Join"][1][1]["Ref"]
        integration = integrations[integration_id]["Properties"]
        assert integration["IntegrationType"] == "AWS_PROXY"
        uri = json.dumps(integration["IntegrationUri"])
        functions = resources(template, "AWS::Lambda::Function")
        (target,) = [fid for fid in functions if fid in uri]
        assert functions[target]["Properties"]["Handler"] == routes.LIVE_CONNECTIONS.handler
        assert any(json.dumps(p["Properties"]["FunctionName"]).count(target) for p in permissions.values())
    # one integration and one invoke permission for all five routes, scoped to this API
    assert len(integrations) == 1
    (invoke,) = [
        p["Properties"] for p in permissions.values() if json.dumps(p["Properties"]["FunctionName"]).count(target)
    ]
    assert invoke["Principal"] == "apigateway.amazonaws.com"
    assert "WebSocketApi" in json.dumps(invoke["SourceArn"]) and json.dumps(invoke["SourceArn"]).endswith('"/*"]]}')
    answering = {
        r["Properties"]["RouteId"]["Ref"] for r in resources(template, "AWS::ApiGatewayV2::RouteResponse").values()
    }
    by_id = {rid: r["Properties"]["RouteKey"] for rid, r in resources(template, "AWS::ApiGatewayV2::Route").items()}
    assert {by_id[rid] for rid in answering} == set(routes.LIVE_ANSWERING_ROUTES)


def test_websocket_stage_has_json_access_logs_and_a_throttle(template):
    (stage,) = resources(template, "AWS::ApiGatewayV2::Stage").values()
    p = stage["Properties"]
    assert p["StageName"] == "dev" and p["AutoDeploy"] is True
    assert p["DefaultRouteSettings"]["ThrottlingRateLimit"] == 25
    assert p["DefaultRouteSettings"]["ThrottlingBurstLimit"] == 50
    fields = json.loads(p["AccessLogSettings"]["Format"])
    assert {"requestId", "ip", "routeKey", "status", "connectionId"} <= set(fields)
    assert "Fn::GetAtt" in p["AccessLogSettings"]["DestinationArn"]
    # the account's API Gateway logging role comes first, as for the REST stage
    assert any("ApiGatewayAccount" in d for d in stage.get("DependsOn", []))


def test_connections_table_keys_sparse_subscribers_index_and_ttl(template):
    (table,) = [
        t["Properties"]
        for t in resources(template, "AWS::DynamoDB::Table").values()
        if t["Properties"]["KeySchema"][0]["AttributeName"] == schema.CONNECTIONS_PARTITION_KEY
    ]
    assert table["KeySchema"][1] == {"AttributeName": schema.CONNECTIONS_SORT_KEY, "KeyType": "RANGE"}
    assert table["TimeToLiveSpecification"] == {"AttributeName": schema.TTL_ATTRIBUTE, "Enabled": True}
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    (index,) = table["GlobalSecondaryIndexes"]
    assert index["IndexName"] == schema.SUBSCRIBERS_INDEX
    assert index["KeySchema"] == [
        {"AttributeName": schema.SUBSCRIBERS_INDEX_PARTITION_KEY, "KeyType": "HASH"},
        {"AttributeName": schema.SUBSCRIBERS_INDEX_SORT_KEY, "KeyType": "RANGE"},
    ]
    assert index["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert "StreamSpecification" not in table


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


def test_live_functions_know_the_connections_table_and_the_callback_url(template):
    functions = resources(template, "AWS::Lambda::Function").values()
    for f in functions:
        env = f["Properties"]["Environment"]["Variables"]
        if f["Properties"]["Handler"] in (routes.LIVE_CONNECTIONS.handler, routes.LIVE_BROADCASTER.handler):
            assert "Ref" in env["CONNECTIONS_TABLE"]
            url = json.dumps(env["LIVE_CONNECTIONS_URL"])
            assert url.startswith('{"Fn::Join": ["", ["https://"') and "/dev" in url
        else:  # nothing else gets them
            assert "CONNECTIONS_TABLE" not in env and "LIVE_CONNECTIONS_URL" not in env


def _statements(template) -> dict[str, dict]:
    role_id = next(iter(resources(template, "AWS::Lambda::Function").values()))["Properties"]["Role"]["Fn::GetAtt"][0]
    (policy,) = template.to_json()["Resources"][role_id]["Properties"]["Policies"]
    return {s["Sid"]: s for s in policy["PolicyDocument"]["Statement"]}


def test_shared_role_may_use_the_connections_table_its_index_and_push_to_this_stage_only(template):
    statements = _statements(template)
    rw = statements["LiveConnectionsReadWrite"]
    assert sorted(rw["Action"]) == [
        "dynamodb:DeleteItem",
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
    ]
    assert rw["Resource"]["Fn::GetAtt"][1] == "Arn" and "Connections" in rw["Resource"]["Fn::GetAtt"][0]
    index = json.dumps(statements["LiveSubscribersQuery"]["Resource"])
    assert statements["LiveSubscribersQuery"]["Action"] == "dynamodb:Query"
    assert f"/index/{schema.SUBSCRIBERS_INDEX}" in index and "index/*" not in index
    push = statements["LivePush"]
    assert push["Action"] == "execute-api:ManageConnections"
    arn = json.dumps(push["Resource"])
    assert "WebSocketApi" in arn and arn.endswith('"/dev/POST/@connections/*"]]}')


def test_live_url_is_an_output_with_a_stable_id(template):
    outputs = template.to_json()["Outputs"]
    assert "LiveUrl" in outputs
    assert "wss://" in json.dumps(outputs["LiveUrl"]["Value"])


def test_cloudfront_passes_the_websocket_handshake_to_nginx(template):
    """CloudFront forwards a WebSocket upgrade when the behaviour sends the viewer's Sec-WebSocket-* headers: the
    dashboard's one behaviour sends every viewer header (the managed AllViewer policy), caches nothing and allows
    GET, so wss://<dashboard>/live reaches Nginx (through the VPC origin: CloudFront carries WebSockets to VPC
    origins since May 2026)."""
    (distribution,) = dashboard_only(resources(template, "AWS::CloudFront::Distribution")).values()
    behaviour = distribution["Properties"]["DistributionConfig"]["DefaultCacheBehavior"]
    assert behaviour["OriginRequestPolicyId"] == "216adef6-5c7f-47e4-b989-5492eafa07d3"  # AllViewer
    assert behaviour["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"  # CachingDisabled
    assert "GET" in behaviour["AllowedMethods"]
    assert "CacheBehaviors" not in distribution["Properties"]["DistributionConfig"]  # /live takes the default
