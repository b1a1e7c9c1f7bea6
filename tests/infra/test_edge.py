"""The edge: a CloudFront distribution in front of the REST API's public reads (stacks/leaderboard/edge.py)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from aws_cdk.assertions import Match, Template
from cdk_leaderboard.edge import SORT_QUERY_FUNCTION
from cdk_leaderboard.paths import routes

from stacks.app_builder import build_app, stack_name

# The dashboard has a distribution of its own: the edge's is the one whose comment says so.
EDGE_DISTRIBUTION = {"Properties": {"DistributionConfig": {"Comment": Match.string_like_regexp("^Leaderboard edge")}}}


CORS_CUSTOM_ORIGIN_POLICY = "59781a5b-3903-41f3-afcb-af62929ccde1"  # managed: forwards Origin only


def _one(template: Template, kind: str) -> tuple[str, dict]:
    found = template.find_resources(kind, EDGE_DISTRIBUTION if kind == "AWS::CloudFront::Distribution" else None)
    assert len(found) == 1, sorted(found)
    return next(iter(found.items()))


@pytest.fixture(scope="module")
def edge(template):
    _, distribution = _one(template, "AWS::CloudFront::Distribution")
    return distribution["Properties"]["DistributionConfig"]


def test_cache_policy_honours_the_origin_within_bounded_ttls(template):
    """Min 0 (no-store is honoured), default 0 (an answer without Cache-Control, API Gateway's own, is not kept),
    max the longest a route states (a closed period, the OpenAPI document)."""
    _, policy = _one(template, "AWS::CloudFront::CachePolicy")
    config = policy["Properties"]["CachePolicyConfig"]
    assert (config["MinTTL"], config["DefaultTTL"], config["MaxTTL"]) == (0, 0, routes.SETTLED_SECONDS)
    longest = max(max(r.cache.max_age, r.cache.settled_max_age) for r in routes.ROUTES)
    assert longest == config["MaxTTL"]


def test_cache_key_is_the_cached_routes_query_parameters_and_nothing_else(template):
    """Every query parameter a cached route takes (so different pages are different entries), no header, no cookie:
    no x-api-key reaches the API through the edge, and the answers of public reads are the same for every Origin."""
    _, policy = _one(template, "AWS::CloudFront::CachePolicy")
    key = policy["Properties"]["CachePolicyConfig"]["ParametersInCacheKeyAndForwardedToOrigin"]
    assert key["QueryStringsConfig"] == {
        "QueryStringBehavior": "whitelist",
        "QueryStrings": list(routes.edge_query_names()),
    }
    assert set(routes.edge_query_names()) >= {"period", "limit", "cursor", "ids", "player_id"}
    assert key["HeadersConfig"] == {"HeaderBehavior": "none"}
    assert key["CookiesConfig"] == {"CookieBehavior": "none"}


def test_compression_gzip_and_brotli(template, edge):
    _, policy = _one(template, "AWS::CloudFront::CachePolicy")
    key = policy["Properties"]["CachePolicyConfig"]["ParametersInCacheKeyAndForwardedToOrigin"]
    assert key["EnableAcceptEncodingGzip"] is True and key["EnableAcceptEncodingBrotli"] is True
    assert edge["DefaultCacheBehavior"]["Compress"] is True


def test_behavior_reads_only_and_forwards_nothing_else(template, edge):
    """GET, HEAD, OPTIONS pass (a POST is refused by CloudFront: writes use ApiUrl); GET and HEAD are cached, a
    preflight (its answer follows the caller's Origin) never; the API gets the cache key (path and the routes' query
    parameters) and the Origin header, nothing else."""
    behavior = edge["DefaultCacheBehavior"]
    assert behavior["AllowedMethods"] == ["GET", "HEAD", "OPTIONS"]
    assert behavior["CachedMethods"] == ["GET", "HEAD"]
    assert behavior["ViewerProtocolPolicy"] == "https-only"
    # Without a WAF (dev), AWS's managed CORS-CustomOrigin policy: the Origin header only (for a preflight), no query
    # string or cookie; with it, tests/infra/test_waf_keys.py.
    assert behavior["OriginRequestPolicyId"] == CORS_CUSTOM_ORIGIN_POLICY and "ForwardedValues" not in behavior
    policy_id, _ = _one(template, "AWS::CloudFront::CachePolicy")
    assert behavior["CachePolicyId"] == {"Ref": policy_id}
    assert "CacheBehaviors" not in edge  # one behavior: every path is the API's


def test_origin_is_the_rest_api_over_https_with_the_stage_as_path(template, edge):
    (origin,) = edge["Origins"]
    assert origin["CustomOriginConfig"] == {"OriginProtocolPolicy": "https-only", "OriginSSLProtocols": ["TLSv1.2"]}
    rendered = json.dumps(origin)
    api_id = next(iter(template.find_resources("AWS::ApiGateway::RestApi")))
    stage_id = next(iter(template.find_resources("AWS::ApiGateway::Stage")))
    assert {"Ref": api_id} == origin["DomainName"]["Fn::Select"][1]["Fn::Split"][1]["Fn::Join"][1][1]
    assert ".execute-api." in rendered and f'"Ref": "{stage_id}"' in json.dumps(origin["OriginPath"])


def test_errors_are_kept_only_as_long_as_the_origin_says(edge):
    """CloudFront keeps 4xx/5xx 10 s by default and ignores no-store on most of them: every status it would cache
    gets 0, so a 403, a 5xx or API Gateway's own answer is never served from the cache."""
    codes = {r["ErrorCode"]: r["ErrorCachingMinTTL"] for r in edge["CustomErrorResponses"]}
    assert codes == dict.fromkeys((400, 403, 404, 405, 414, 416, 500, 501, 502, 503, 504), 0)
    assert all("ResponsePagePath" not in r for r in edge["CustomErrorResponses"])


def test_viewer_request_function_sorts_the_query(template, edge):
    """Equal queries share an entry: the function the behavior runs first puts the parameters in sorted order."""
    function_id, function = _one(template, "AWS::CloudFront::Function")
    (association,) = edge["DefaultCacheBehavior"]["FunctionAssociations"]
    assert association == {"EventType": "viewer-request", "FunctionARN": {"Fn::GetAtt": [function_id, "FunctionARN"]}}
    assert function["Properties"]["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"
    assert function["Properties"]["FunctionCode"] == SORT_QUERY_FUNCTION


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (make setup installs the CDK CLI with it)")
def test_sort_function_puts_parameters_in_one_order():
    """The function's code, run by node: two orders of one query come out the same, values (and repeats) kept."""
    script = SORT_QUERY_FUNCTION + (
        "var a = handler({viewer: {ip: '192.0.2.1'}, request: {headers: {}, querystring: {period: {value: 'daily'}, "
        "limit: {value: '5'}, cursor: {value: 'x', multiValue: [{value: 'x'}, {value: 'y'}]}}}});\n"
        "var b = handler({viewer: {ip: '192.0.2.1'}, request: {headers: {}, querystring: {cursor: {value: 'x', "
        "multiValue: [{value: 'x'}, {value: 'y'}]}, limit: {value: '5'}, period: {value: 'daily'}}}});\n"
        "console.log(JSON.stringify([a.querystring, b.querystring]));\n"
    )
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True).stdout
    first, second = json.loads(out)
    assert list(first) == list(second) == ["cursor", "limit", "period"]
    assert first == second and first["cursor"]["multiValue"] == [{"value": "x"}, {"value": "y"}]


def test_edge_url_output_has_a_stable_logical_id(template, edge):
    """EdgeUrl: https://<the distribution's domain>, no path: append the API's paths (/leaderboards/global/top)."""
    distribution_id, _ = _one(template, "AWS::CloudFront::Distribution")
    output = template.to_json()["Outputs"]["EdgeUrl"]
    assert output["Value"] == {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [distribution_id, "DomainName"]}]]}


def test_the_edge_stands_without_the_dashboard():
    """dashboard=False: no instance and no dashboard distribution, but the edge and EdgeUrl stay; cdk-nag clean."""
    stage = {"dashboard": False, "monitoring": {"enabled": False}}
    app = build_app("lean", context={"stages": {"lean": stage}})
    template = Template.from_json(app.synth().get_stack_by_name(stack_name("lean")).template)  # raises on nag
    template.resource_count_is("AWS::EC2::Instance", 0)
    template.resource_count_is("AWS::CloudFront::Distribution", 1)
    assert "EdgeUrl" in template.to_json()["Outputs"]
    off = build_app("bare", context={"stages": {"bare": {**stage, "edge": False}}}, nag=False)
    bare = Template.from_json(off.synth().get_stack_by_name(stack_name("bare")).template)
    bare.resource_count_is("AWS::CloudFront::Distribution", 0)
    assert "EdgeUrl" not in bare.to_json()["Outputs"]


def _references(node) -> set[str]:
    """Logical ids a template fragment refers to (Ref, Fn::GetAtt, and ${Name} in Fn::Sub)."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "Ref" and isinstance(value, str):
                found.add(value)
            elif key == "Fn::GetAtt":
                found.add(value[0] if isinstance(value, list) else value.split(".")[0])
            found |= _references(value)
    elif isinstance(node, list):
        for item in node:
            found |= _references(item)
    return found


def _dependencies(template_json: dict) -> dict[str, set[str]]:
    resources = template_json["Resources"]
    graph = {}
    for lid, resource in resources.items():
        depends = resource.get("DependsOn", [])
        refs = _references(resource.get("Properties", {})) | set([depends] if isinstance(depends, str) else depends)
        graph[lid] = {r for r in refs if r in resources}
    return graph


def _user_data_json(template_json: dict) -> str:
    (instance,) = [r for r in template_json["Resources"].values() if r["Type"] == "AWS::EC2::Instance"]
    return json.dumps(instance["Properties"]["UserData"])


def test_the_dashboard_reads_through_the_edge_without_a_dependency_cycle(dev_template_json, template):
    """Edge on (the default): the instance's user data names the edge's domain (Nginx's /api/ reads through it), so
    the instance depends on the edge's distribution; that one depends on the REST API only, and the dashboard's own
    distribution on the instance: the resource graph has no cycle (CloudFormation would refuse it)."""
    edge_id, _ = _one(template, "AWS::CloudFront::Distribution")
    user_data = _user_data_json(dev_template_json)
    assert json.dumps({"Fn::GetAtt": [edge_id, "DomainName"]}) in user_data
    assert 'EDGE_UPSTREAM=\\"https://' in user_data and 'EDGE_HOST=\\"' in user_data
    graph = _dependencies(dev_template_json)
    (instance_id,) = [k for k, r in dev_template_json["Resources"].items() if r["Type"] == "AWS::EC2::Instance"]
    assert edge_id in graph[instance_id]

    def reachable(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    assert instance_id not in reachable(edge_id)  # the edge does not wait for the dashboard
    assert not [lid for lid in graph if lid in reachable(lid)]  # no cycle anywhere


def test_without_the_edge_the_dashboard_reads_from_the_api():
    """edge=False: the user data names no edge (EDGE_HOST empty), so Nginx's /api/ reads from API Gateway."""
    app = build_app(
        "noedge", context={"stages": {"noedge": {"edge": False, "monitoring": {"enabled": False}}}}, nag=False
    )
    template_json = app.synth().get_stack_by_name(stack_name("noedge")).template
    user_data = _user_data_json(template_json)
    assert 'EDGE_UPSTREAM=\\"\\"' in user_data and 'EDGE_HOST=\\"\\"' in user_data
    assert '"DomainName"' not in user_data  # no distribution's domain
