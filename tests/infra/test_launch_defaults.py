"""The defaults a launch meets: no reserved concurrency, throttles sized from the benchmark's model,
and a per-client limit in production. The figures are the ones docs/OPERATIONS.md's table "What one
stack takes with default settings" states; a test below holds the table to the template."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cdk_leaderboard.props import (
    DEFAULT_WAF_READS_PER_5_MINUTES,
    SUBMISSIONS_PER_SHARD_PER_SECOND,
    LeaderboardProps,
    Waf,
)

from cdk_leaderboard_lambda.web import routes

OPERATIONS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "OPERATIONS.md"

# What the table states: (rate/s, burst) per throttle, and the WAF's reads per 5 minutes per client.
STAGE_DEFAULT = (500, 1000)
PUBLIC_READ = (100, 200)
GAME_KEY = (500, 1000, 20_000_000)
ADMIN_KEY = (5, 10, 10_000)
WAF_READS = 3000


def _of_type(template: dict, kind: str) -> dict[str, dict]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def _method_settings(template: dict) -> dict[tuple[str, str], dict]:
    ((stage,),) = [list(_of_type(template, "AWS::ApiGateway::Stage").values())]
    return {(s["ResourcePath"], s["HttpMethod"]): s for s in stage["Properties"]["MethodSettings"]}


def _plans(template: dict) -> dict[str, dict]:
    outputs = template["Outputs"]
    return {
        name: template["Resources"][outputs[f"{name}UsagePlanId"]["Value"]["Ref"]]["Properties"]
        for name in ("Game", "Admin")
    }


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_no_function_reserves_concurrency_by_default(stage, dev_template_json, prod_template_json):
    """A new account's Lambda quota can be 10; any ReservedConcurrentExecutions then fails the deploy (Lambda
    keeps 100 unreserved). Every function of the template, the route table's and the others."""
    template = {"dev": dev_template_json, "prod": prod_template_json}[stage]
    functions = _of_type(template, "AWS::Lambda::Function")
    assert len(functions) >= len(routes.FUNCTIONS)
    reserving = {k for k, fn in functions.items() if "ReservedConcurrentExecutions" in fn["Properties"]}
    assert reserving == set()
    assert LeaderboardProps().reserved_concurrency == {}


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_the_stage_throttles_are_the_tables(stage, dev_template_json, prod_template_json):
    """Every method: 500/s (burst 1,000) for all its callers together, so a keyed write's ceiling is its key's
    plan; every public GET: 100/s (burst 200) at the origin, behind the edge."""
    settings = _method_settings({"dev": dev_template_json, "prod": prod_template_json}[stage])
    default = settings[("/*", "*")]
    assert (default["ThrottlingRateLimit"], default["ThrottlingBurstLimit"]) == STAGE_DEFAULT
    public = [r for r in routes.ROUTES if r.access == routes.PUBLIC]
    assert public
    for route in public:
        s = settings[("/" + route.path.replace("/", "~1"), route.method)]
        assert (s["ThrottlingRateLimit"], s["ThrottlingBurstLimit"]) == PUBLIC_READ, route.path


def test_the_game_key_covers_one_board_period_on_one_shard(dev_template_json):
    """The benchmark's model: a rank index partition takes 1,000 write units/s, an improving submission moves
    its entry (2 index units): ~500 improving submissions/s per shard and board period."""
    plans = _plans(dev_template_json)
    game, admin = plans["Game"], plans["Admin"]
    assert (game["Throttle"]["RateLimit"], game["Throttle"]["BurstLimit"], game["Quota"]["Limit"]) == GAME_KEY
    assert (admin["Throttle"]["RateLimit"], admin["Throttle"]["BurstLimit"], admin["Quota"]["Limit"]) == ADMIN_KEY
    assert GAME_KEY[0] == SUBMISSIONS_PER_SHARD_PER_SECOND == 1000 // 2
    assert STAGE_DEFAULT[0] >= GAME_KEY[0]  # the method's shared bucket does not bind before the key's plan


def test_production_has_a_per_client_read_limit(prod_template_json):
    """One caller cannot empty a public method's shared bucket: WAF blocks a client over 3,000 counted requests in 5
    minutes: GETs, requests with a bearer token (players' devices) and every request to the client routes (run
    starts, player tokens). A client is its source address, or through the edge the viewer's address the edge wrote
    (tests/infra/test_waf_keys.py has the keys). Keyed writes are left to the key's plan: a game server sends many
    from one address."""
    ((_, acl),) = [
        (k, a)
        for k, a in _of_type(prod_template_json, "AWS::WAFv2::WebACL").items()
        if not k.startswith("LeaderboardLive")
    ]  # the REST API's (the Event API has its own)
    by_ip, by_viewer = acl["Properties"]["Rules"]
    get_only = {
        "ByteMatchStatement": {
            "FieldToMatch": {"Method": {}},
            "PositionalConstraint": "EXACTLY",
            "SearchString": "GET",
            "TextTransformations": [{"Priority": 0, "Type": "NONE"}],
        }
    }
    bearer = {
        "SizeConstraintStatement": {
            "FieldToMatch": {"SingleHeader": {"Name": "authorization"}},
            "ComparisonOperator": "GT",
            "Size": 0,
            "TextTransformations": [{"Priority": 0, "Type": "NONE"}],
        }
    }
    for rule in (by_ip, by_viewer):
        rate = rule["Statement"]["RateBasedStatement"]
        assert (rate["Limit"], rate["EvaluationWindowSec"], rule["Action"]) == (WAF_READS, 300, {"Block": {}})
        counted = rate["ScopeDownStatement"]["AndStatement"]["Statements"][0]["OrStatement"]["Statements"]
        assert counted[:2] == [get_only, bearer] and "RegexMatchStatement" in counted[2]
    assert by_ip["Statement"]["RateBasedStatement"]["AggregateKeyType"] == "IP"
    assert by_viewer["Statement"]["RateBasedStatement"]["AggregateKeyType"] == "FORWARDED_IP"
    # one on the API's stage, one on the live Event API (tests/infra/test_live.py)
    assert len(_of_type(prod_template_json, "AWS::WAFv2::WebACLAssociation")) == 2


def test_the_waf_default_follows_production_and_the_props():
    assert LeaderboardProps().effective_waf_limit is None  # dev: its monthly price
    assert LeaderboardProps(production=True).effective_waf_limit == DEFAULT_WAF_READS_PER_5_MINUTES == WAF_READS
    assert LeaderboardProps(production=True, waf=Waf(enabled=False)).effective_waf_limit is None
    assert LeaderboardProps(waf=Waf(enabled=True)).effective_waf_limit == WAF_READS
    assert LeaderboardProps(waf=Waf(requests_per_5_minutes_per_ip=600)).effective_waf_limit == 600  # as before
    assert LeaderboardProps(waf=Waf(enabled=False, requests_per_5_minutes_per_ip=600)).effective_waf_limit is None


def _table_rows() -> dict[str, str]:
    text = OPERATIONS_PAGE.read_text()
    section = text.split("## What one stack takes with default settings", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| operation")]
    return {row.split("|")[1].strip(): row for row in rows}


def _numbers(row: str) -> set[int]:
    return {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", row)}


def test_the_performance_table_states_these_limits():
    """docs/OPERATIONS.md's table: each row names the limit the template sets."""
    rows = _table_rows()
    submit = next(r for k, r in rows.items() if k.startswith("Submit"))
    assert {GAME_KEY[0], GAME_KEY[1], GAME_KEY[2]} <= _numbers(submit) and "game_key_rate_limit" in submit
    read = next(r for k, r in rows.items() if k.startswith("Public read"))
    assert set(PUBLIC_READ) <= _numbers(read) and "public_read_rate_limit" in read
    client = next(r for k, r in rows.items() if k.startswith("One client"))
    assert WAF_READS in _numbers(client) and "Waf(requests_per_5_minutes_per_ip=" in client
    admin = next(r for k, r in rows.items() if k.startswith("Admin"))
    assert set(ADMIN_KEY[:2]) <= _numbers(admin) and "admin_key_rate_limit" in admin
