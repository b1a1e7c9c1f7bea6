"""The per-client WAF limit is keyed on what a client cannot forge. A client is its connecting address, or
through this stack's edge the viewer's address the edge wrote, trusted only with the edge's secret proof; never the
first address of X-Forwarded-For (WAF's forwarded-IP key takes the first address, which the client writes)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from cdk_leaderboard.edge import SORT_QUERY_FUNCTION
from cdk_leaderboard.waf import EDGE_PROOF_HEADER, VIEWER_IP_HEADER

EDGE_COMMENT = "Leaderboard edge"


def _of_type(template_json: dict, type_: str) -> dict:
    return {k: r for k, r in template_json["Resources"].items() if r["Type"] == type_}


def _walk(node):
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _rules(template_json: dict) -> dict[str, dict]:
    ((_, acl),) = [
        (k, a) for k, a in _of_type(template_json, "AWS::WAFv2::WebACL").items() if not k.startswith("LeaderboardLive")
    ]  # the REST API's (the Event API has its own)
    return {rule["Name"]: rule["Statement"]["RateBasedStatement"] for rule in acl["Properties"]["Rules"]}


def _proof_reference(template_json: dict) -> dict:
    """The proof's value as the template holds it: a dynamic reference to the stack's own secret, never text."""
    ((secret_id, _),) = (
        (k, r) for k, r in _of_type(template_json, "AWS::SecretsManager::Secret").items() if "EdgeProof" in k
    )
    return {"Fn::Join": ["", ["{{resolve:secretsmanager:", {"Ref": secret_id}, ":SecretString:::}}"]]}


def _proof_statement(template_json: dict) -> dict:
    return {
        "ByteMatchStatement": {
            "FieldToMatch": {"SingleHeader": {"Name": EDGE_PROOF_HEADER}},
            "PositionalConstraint": "EXACTLY",
            "SearchString": _proof_reference(template_json),
            "TextTransformations": [{"Priority": 0, "Type": "NONE"}],
        }
    }


def _edge_config(template_json: dict) -> dict:
    (config,) = (
        d["Properties"]["DistributionConfig"]
        for d in _of_type(template_json, "AWS::CloudFront::Distribution").values()
        if d["Properties"]["DistributionConfig"]["Comment"].startswith(EDGE_COMMENT)
    )
    return config


def test_no_rate_key_reads_x_forwarded_for(prod_template_json, custom_template_json):
    """No forwarded-IP key on X-Forwarded-For anywhere: its first address is the client's own claim, so a fresh
    address per request escaped both rules. The one forwarded-IP key reads the header the edge writes."""
    for template in (prod_template_json, custom_template_json):
        configs = [n["ForwardedIPConfig"] for n in _walk(template) if isinstance(n, dict) and "ForwardedIPConfig" in n]
        assert configs == [{"HeaderName": VIEWER_IP_HEADER, "FallbackBehavior": "MATCH"}]
        assert "x-forwarded-for" not in json.dumps(_of_type(template, "AWS::WAFv2::WebACL")).lower()


def test_each_rate_key_is_the_source_address_or_the_edge_written_viewer_under_the_proof(prod_template_json):
    """Per source address unless the request proves it came through the edge; per viewer address (the edge's header)
    only when it does. Both count the same requests, so no request is outside both."""
    rules = _rules(prod_template_json)
    assert set(rules) == {"RateLimitPerIp", "RateLimitPerViewer"}
    by_ip, by_viewer = rules["RateLimitPerIp"], rules["RateLimitPerViewer"]
    assert by_ip["AggregateKeyType"] == "IP" and "ForwardedIPConfig" not in by_ip
    assert by_viewer["AggregateKeyType"] == "FORWARDED_IP"
    assert by_viewer["ForwardedIPConfig"]["HeaderName"] == VIEWER_IP_HEADER
    ip_counted, not_proven = by_ip["ScopeDownStatement"]["AndStatement"]["Statements"]
    viewer_counted, proven = by_viewer["ScopeDownStatement"]["AndStatement"]["Statements"]
    assert ip_counted == viewer_counted
    assert proven == _proof_statement(prod_template_json)
    assert not_proven == {"NotStatement": {"Statement": proven}}


def test_the_proof_is_a_secret_never_text_in_the_template(prod_template_json):
    """The WAF's expected value and the header CloudFront sends are one Secrets Manager secret, resolved by
    CloudFormation at deploy: no template, repository or browser holds it."""
    reference = _proof_reference(prod_template_json)
    (origin,) = _edge_config(prod_template_json)["Origins"]
    assert origin["OriginCustomHeaders"] == [{"HeaderName": EDGE_PROOF_HEADER, "HeaderValue": reference}]
    rest = {k: r for k, r in prod_template_json["Resources"].items() if not k.startswith("LeaderboardLive")}
    search_strings = [n["SearchString"] for n in _walk(rest) if isinstance(n, dict) and "SearchString" in n]
    assert reference in search_strings and all(s in ("GET", reference) for s in search_strings)


def test_the_client_routes_are_counted_whatever_the_method(prod_template_json):
    """Run starts, run-token scores (their own route, counted also without an Authorization header) and
    player-token mints count per client for any method (POST included), not only GETs or requests that happen to
    carry Authorization; score submissions with the game key do not."""
    counted = _rules(prod_template_json)["RateLimitPerIp"]["ScopeDownStatement"]["AndStatement"]["Statements"][0]
    (regex,) = (s["RegexMatchStatement"] for s in counted["OrStatement"]["Statements"] if "RegexMatchStatement" in s)
    assert regex["FieldToMatch"] == {"UriPath": {}}
    assert [t["Type"] for t in regex["TextTransformations"]] == ["URL_DECODE", "NORMALIZE_PATH"]
    pattern = re.compile(regex["RegexString"])
    run_score = "/prod/leaderboards/global/runs/AAAAAAAAAAAAAAAAAAAAAA/score"
    for path in ("/prod/players/p-1/tokens", "/prod/leaderboards/global/runs", "/players/p-1/tokens/", run_score):
        assert pattern.search(path), path
    others = ("/prod/leaderboards/global/scores", "/prod/scores", "/prod/players/p-1", "/prod/leaderboards")
    for path in (*others, "/prod/leaderboards/global/scores/bulk", "/prod/leaderboards/global/runs/x/other"):
        assert not pattern.search(path), path


def test_the_edge_forwards_the_viewer_address_it_wrote(prod_template_json, dev_template_json):
    """The viewer-request function writes the viewer's address; with the WAF the origin request policy forwards it
    (and Origin), nothing else. Without a WAF (dev) no proof, no secret, and AWS's managed Origin-only policy."""
    behavior = _edge_config(prod_template_json)["DefaultCacheBehavior"]
    policy = prod_template_json["Resources"][behavior["OriginRequestPolicyId"]["Ref"]]["Properties"]
    assert policy["OriginRequestPolicyConfig"]["HeadersConfig"] == {
        "HeaderBehavior": "whitelist",
        "Headers": ["origin", VIEWER_IP_HEADER],
    }
    assert policy["OriginRequestPolicyConfig"]["QueryStringsConfig"] == {"QueryStringBehavior": "none"}
    assert policy["OriginRequestPolicyConfig"]["CookiesConfig"] == {"CookieBehavior": "none"}
    assert _of_type(dev_template_json, "AWS::CloudFront::OriginRequestPolicy") == {}
    (dev_origin,) = _edge_config(dev_template_json)["Origins"]
    assert "OriginCustomHeaders" not in dev_origin
    assert not [k for k in _of_type(dev_template_json, "AWS::SecretsManager::Secret") if "EdgeProof" in k]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (make setup installs the CDK CLI with it)")
def test_the_viewer_function_overwrites_a_viewer_address_the_client_sent():
    """Run by node: whatever the client put in the header, the origin gets the address CloudFront connected."""
    sent = {VIEWER_IP_HEADER: {"value": "1.2.3.4", "multiValue": [{"value": "1.2.3.4"}, {"value": "5.6.7.8"}]}}
    event = {"viewer": {"ip": "203.0.113.7"}, "request": {"querystring": {}, "headers": sent}}
    script = SORT_QUERY_FUNCTION + f"console.log(JSON.stringify(handler({json.dumps(event)}).headers));\n"
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == {VIEWER_IP_HEADER: {"value": "203.0.113.7"}}


def test_a_keyless_request_is_counted_whatever_its_route(prod_template_json):
    """A flood without x-api-key on the game servers' score route (or any keyed route) counts per client: API
    Gateway refuses it before any function (403), but AWS documents neither that such a request is unbilled nor
    that the key is checked before the method's throttle, which all callers share. Keyed writes stay uncounted (a
    game server sends many from one address). Both rules count the same requests, and no rule is added (the web
    ACL's price: test_idle_cost.py)."""
    rules = _rules(prod_template_json)
    assert len(rules) == 2
    for rule in rules.values():
        counted = rule["ScopeDownStatement"]["AndStatement"]["Statements"][0]["OrStatement"]["Statements"]
        keyless = [s["NotStatement"]["Statement"] for s in counted if "NotStatement" in s]
        assert keyless == [
            {
                "SizeConstraintStatement": {
                    "FieldToMatch": {"SingleHeader": {"Name": "x-api-key"}},
                    "ComparisonOperator": "GT",
                    "Size": 0,
                    "TextTransformations": [{"Priority": 0, "Type": "NONE"}],
                }
            }
        ]
