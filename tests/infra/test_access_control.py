"""Who may call what, and what any caller can cost: keys, usage plans, throttles, concurrency, WAF, the
HTTPS dashboard, and the instance's permissions. One concern per test."""

from __future__ import annotations

import json

from cdk_leaderboard.dashboard import DASHBOARD_PORT
from cdk_leaderboard.props import LeaderboardProps
from cdk_leaderboard.regions import CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS, UNMAPPED

from cdk_leaderboard_lambda.web import routes
from tests.support import role_access
from tests.support.cloudfront import dashboard_only


def _of_type(template_json: dict, type_: str) -> dict:
    return {k: r for k, r in template_json["Resources"].items() if r["Type"] == type_}


def _route_functions(template_json: dict) -> dict[str, dict]:
    """The route table's functions by name (the template may hold others, e.g. a stream consumer)."""
    by_handler = {f.handler: f.name for f in routes.FUNCTIONS}
    found = {
        by_handler[fn["Properties"]["Handler"]]: fn
        for fn in _of_type(template_json, "AWS::Lambda::Function").values()
        if fn["Properties"]["Handler"] in by_handler
    }
    assert set(found) == set(by_handler.values())
    return found


def _plans(template_json: dict) -> dict[str, dict]:
    """Usage plans by output name: GameUsagePlanId / AdminUsagePlanId -> properties."""
    outputs = template_json["Outputs"]
    return {
        access: template_json["Resources"][outputs[f"{name}UsagePlanId"]["Value"]["Ref"]]["Properties"]
        for access, name in ((routes.GAME, "Game"), (routes.ADMIN, "Admin"))
    }


def _plan_keys(template_json: dict) -> dict[str, str]:
    """Usage plan logical id -> API key logical id."""
    return {
        r["Properties"]["UsagePlanId"]["Ref"]: r["Properties"]["KeyId"]["Ref"]
        for r in _of_type(template_json, "AWS::ApiGateway::UsagePlanKey").values()
    }


def test_each_key_class_has_its_own_key_plan_throttle_and_quota(dev_template_json):
    """A game-server key and an admin key, each the only key of its own usage plan, with the props' limits."""
    defaults = LeaderboardProps()
    plans = _plans(dev_template_json)
    assert plans[routes.GAME]["Throttle"] == {
        "RateLimit": defaults.throttles.game_key_rate_limit,
        "BurstLimit": defaults.throttles.game_key_burst_limit,
    }
    assert plans[routes.GAME]["Quota"] == {"Limit": defaults.throttles.game_key_daily_quota, "Period": "DAY"}
    assert plans[routes.ADMIN]["Throttle"] == {
        "RateLimit": defaults.throttles.admin_key_rate_limit,
        "BurstLimit": defaults.throttles.admin_key_burst_limit,
    }
    assert plans[routes.ADMIN]["Quota"] == {"Limit": defaults.throttles.admin_key_daily_quota, "Period": "DAY"}
    keys = _plan_keys(dev_template_json)
    outputs = dev_template_json["Outputs"]
    game_plan, admin_plan = outputs["GameUsagePlanId"]["Value"]["Ref"], outputs["AdminUsagePlanId"]["Value"]["Ref"]
    assert set(keys) == {game_plan, admin_plan} and keys[game_plan] != keys[admin_plan]


def test_each_key_value_comes_from_its_own_secret(dev_template_json):
    """The game key's value is the GameKeySecretArn secret, the admin key's the AdminKeySecretArn one."""
    resources, outputs = dev_template_json["Resources"], dev_template_json["Outputs"]
    keys = _plan_keys(dev_template_json)
    for name in ("Game", "Admin"):
        key = resources[keys[outputs[f"{name}UsagePlanId"]["Value"]["Ref"]]]
        secret = outputs[f"{name}KeySecretArn"]["Value"]["Ref"]
        assert f'"Ref": "{secret}"' in json.dumps(key["Properties"]["Value"])
        assert "{{resolve:secretsmanager:" in json.dumps(key["Properties"]["Value"])


def test_each_function_knows_each_key_class_by_its_secret_not_its_id(dev_template_json):
    """API Gateway accepts any plan's key on every keyed method; each function is given the secret each of its
    routes' plan's key takes its value from and answers a key of the wrong class with 403 (http._check_key, by
    value): no key id, which a rotation changes."""
    resources, outputs = dev_template_json["Resources"], dev_template_json["Outputs"]
    keys = _plan_keys(dev_template_json)
    expected = {}
    for variable, name in (("GAME_KEY_SECRET_ARN", "Game"), ("ADMIN_KEY_SECRET_ARN", "Admin")):
        key = resources[keys[outputs[f"{name}UsagePlanId"]["Value"]["Ref"]]]
        expected[variable] = outputs[f"{name}KeySecretArn"]["Value"]
        assert json.dumps(expected[variable]) in json.dumps(key["Properties"]["Value"])
    classes = {"GAME_KEY_SECRET_ARN": (routes.GAME,), "ADMIN_KEY_SECRET_ARN": (routes.ADMIN,)}
    for name, fn in _route_functions(dev_template_json).items():
        variables = fn["Properties"]["Environment"]["Variables"]
        # the classes of the routes it serves, whose secrets it alone may read (test_function_access.py)
        served = {
            v
            for v, accesses in classes.items()
            if any(r.function.name == name and r.access in accesses for r in routes.ROUTES)
        }
        assert {v: variables.get(v) for v in variables if v in expected} == {v: expected[v] for v in served}, name
        # no API Gateway key's id (the live key's id, LIVE_EVENTS_API_KEY_ID, is AppSync's: its renewal needs it)
        assert not {"GAME_API_KEY_ID", "ADMIN_API_KEY_ID"} & set(variables), name
    for key in set(keys.values()):
        assert "StageKeys" not in resources[key]["Properties"]  # the usage plan ties it to the stage


def test_no_usage_plan_refuses_a_method_with_a_zero_throttle(dev_template_json, prod_template_json):
    """A zero per-method throttle answers 429 (retry later) to a key of the wrong class: the plans keep their
    rate and quota only, and the function answers the wrong class with 403."""
    for template in (dev_template_json, prod_template_json):
        for access, plan in _plans(template).items():
            ((stage,),) = [plan["ApiStages"]]
            assert not stage.get("Throttle"), access
            assert plan["Throttle"]["RateLimit"] > 0 and plan["Throttle"]["BurstLimit"] > 0


def _stage_path(path: str) -> str:
    """A route's path as a stage's MethodSettings name it: "/leaderboards/{board}" -> "/~1leaderboards~1{board}"."""
    return "/" + path.replace("/", "~1")


def test_anonymous_reads_have_their_own_lower_method_throttle(dev_template_json):
    """Every public GET has its own per-method throttle below the stage default that writes get."""
    defaults = LeaderboardProps()
    ((stage,),) = [list(_of_type(dev_template_json, "AWS::ApiGateway::Stage").values())]
    settings = {(s["ResourcePath"], s["HttpMethod"]): s for s in stage["Properties"]["MethodSettings"]}
    assert settings[("/*", "*")]["ThrottlingRateLimit"] == defaults.throttles.rate_limit
    public = [r for r in routes.ROUTES if r.access == routes.PUBLIC]
    for route in public:
        setting = settings[(_stage_path(route.path), route.method)]
        assert (
            setting["ThrottlingRateLimit"] == defaults.throttles.public_read_rate_limit < defaults.throttles.rate_limit
        )
        assert setting["ThrottlingBurstLimit"] == defaults.throttles.public_read_burst_limit
    keyed = {(_stage_path(r.path), r.method) for r in routes.ROUTES if r.needs_key}
    assert not keyed & set(settings)  # writes keep the stage default (and their key's plan)


def test_reserved_concurrency_is_a_prop(custom_template_json):
    """Only the functions the prop names get a reservation."""
    reserved = {
        name: fn["Properties"].get("ReservedConcurrentExecutions")
        for name, fn in _route_functions(custom_template_json).items()
    }
    assert reserved.pop("score-submit") == 50
    assert set(reserved.values()) == {None}


def test_no_waf_outside_production_by_default(dev_template_json):
    """dev: no web ACL (its monthly price; see test_launch_defaults.py for prod's)."""
    assert _of_type(dev_template_json, "AWS::WAFv2::WebACL") == {}


def test_a_waf_rate_given_turns_the_waf_on_and_blocks_a_client_over_it(custom_template_json):
    ((acl_id, acl),) = [
        (k, a)
        for k, a in _of_type(custom_template_json, "AWS::WAFv2::WebACL").items()
        if not k.startswith("LeaderboardLive")
    ]  # the REST API's (the Event API has its own)
    props = acl["Properties"]
    assert props["Scope"] == "REGIONAL" and props["DefaultAction"] == {"Allow": {}}
    by_ip, by_viewer = props["Rules"]
    for rule in (by_ip, by_viewer):
        assert rule["Action"] == {"Block": {}}
        rate = rule["Statement"]["RateBasedStatement"]
        assert (rate["Limit"], rate["EvaluationWindowSec"]) == (1000, 300)
    assert by_ip["Statement"]["RateBasedStatement"]["AggregateKeyType"] == "IP"
    assert by_viewer["Statement"]["RateBasedStatement"]["AggregateKeyType"] == "FORWARDED_IP"  # the edge's header
    ((_, association),) = [
        (k, a)
        for k, a in _of_type(custom_template_json, "AWS::WAFv2::WebACLAssociation").items()
        if not k.startswith("LeaderboardLive")
    ]  # the REST API's (the Event API has its own)
    (stage_id,) = _of_type(custom_template_json, "AWS::ApiGateway::Stage")
    assert association["Properties"]["WebACLArn"] == {"Fn::GetAtt": [acl_id, "Arn"]}
    arn = association["Properties"]["ResourceArn"]["Fn::Join"][1]
    assert arn[-2:] == ["/stages/", {"Ref": stage_id}]


def test_dashboard_is_served_over_https_by_cloudfront(dev_template_json):
    """Viewers get HTTPS (HTTP redirects); nothing is cached and the admin area's Authorization header passes;
    every viewer header goes to Nginx, Host included (its same-origin check compares Origin with https://<Host>)."""
    ((_, distribution),) = dashboard_only(_of_type(dev_template_json, "AWS::CloudFront::Distribution")).items()
    config = distribution["Properties"]["DistributionConfig"]
    behavior = config["DefaultCacheBehavior"]
    assert behavior["ViewerProtocolPolicy"] == "redirect-to-https"
    assert behavior["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"  # Managed-CachingDisabled
    assert behavior["OriginRequestPolicyId"] == "216adef6-5c7f-47e4-b989-5492eafa07d3"  # Managed-AllViewer
    assert "POST" in behavior["AllowedMethods"]
    assert "ViewerCertificate" not in config  # CloudFront's default certificate
    url = dev_template_json["Outputs"]["DashboardUrl"]["Value"]["Fn::Join"][1]
    assert url[0] == "https://" and url[1]["Fn::GetAtt"][1] == "DomainName"


def test_cloudfront_reaches_the_instance_through_a_vpc_origin_never_the_internet(dev_template_json, prod_template_json):
    """The admin's password never crosses the internet in clear text (an outside review's finding): the
    distribution's one origin is a VPC origin (no custom origin over http-only to a public name, as before), the VPC
    origin is the dashboard instance itself on the dashboard port, and no Elastic IP or public name is left for
    CloudFront."""
    for template in (dev_template_json, prod_template_json):
        ((_, distribution),) = dashboard_only(_of_type(template, "AWS::CloudFront::Distribution")).items()
        (origin,) = distribution["Properties"]["DistributionConfig"]["Origins"]
        assert "CustomOriginConfig" not in origin and "S3OriginConfig" not in origin
        ((vpc_origin_id, vpc_origin),) = _of_type(template, "AWS::CloudFront::VpcOrigin").items()
        assert origin["VpcOriginConfig"]["VpcOriginId"] == {"Fn::GetAtt": [vpc_origin_id, "Id"]}
        ((instance_id, _),) = _of_type(template, "AWS::EC2::Instance").items()
        assert origin["DomainName"] == {"Fn::GetAtt": [instance_id, "PrivateDnsName"]}
        endpoint = vpc_origin["Properties"]["VpcOriginEndpointConfig"]
        arn = endpoint["Arn"]["Fn::Join"][1]
        assert ":instance/" in arn and arn[-1] == {"Ref": instance_id}
        assert (endpoint["HTTPPort"], endpoint["OriginProtocolPolicy"]) == (DASHBOARD_PORT, "http-only")
        assert _of_type(template, "AWS::EC2::EIP") == {} and _of_type(template, "AWS::EC2::EIPAssociation") == {}
        assert "compute.amazonaws.com" not in json.dumps(distribution)
        assert "LeaderboardInUsEast1" not in template.get("Conditions", {})  # the public name's region switch


def test_only_cloudfront_may_reach_the_instance_on_the_dashboard_port_alone(dev_template_json):
    """The security group takes TCP 80 from CloudFront's origin-facing prefix list (which AWS names for VPC
    origins too) and nothing else: no other port, no address range."""
    ((sg_id, sg),) = _of_type(dev_template_json, "AWS::EC2::SecurityGroup").items()
    assert "SecurityGroupIngress" not in sg["Properties"]
    (rule,) = _of_type(dev_template_json, "AWS::EC2::SecurityGroupIngress").values()
    rule = rule["Properties"]
    assert rule["GroupId"] == {"Fn::GetAtt": [sg_id, "GroupId"]}
    assert (rule["IpProtocol"], rule["FromPort"], rule["ToPort"]) == ("tcp", DASHBOARD_PORT, DASHBOARD_PORT)
    assert "CidrIp" not in rule and "CidrIpv6" not in rule
    assert rule["SourcePrefixListId"] == {
        "Fn::FindInMap": [next(iter(dev_template_json["Mappings"])), {"Ref": "AWS::Region"}, "PrefixListId"]
    }


def test_cloudfront_prefix_list_comes_from_the_region_table(dev_template_json):
    """The prefix list id differs per region and synth makes no lookups: a mapping keyed by region."""
    (mapping,) = dev_template_json["Mappings"].values()
    mapped = {region: entry["PrefixListId"] for region, entry in mapping.items() if entry["PrefixListId"] != UNMAPPED}
    assert mapped == CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS


def test_cloudfront_prefix_list_id_can_be_set(custom_template_json, custom_stage):
    (rule,) = _of_type(custom_template_json, "AWS::EC2::SecurityGroupIngress").values()
    assert rule["Properties"]["SourcePrefixListId"] == custom_stage["cloudfront_prefix_list_id"]
    assert all("PrefixListId" not in str(m) for m in custom_template_json.get("Mappings", {}).values())


def test_instance_role_reads_only_its_own_asset_object_and_the_admin_secrets(dev_template_json):
    """s3:GetObject on the site asset's object alone (not the CDK asset bucket); the admin key and the
    password, never the game key; writes to Nginx's two log groups (test_stack.py checks them); no other policy
    on the instance role."""
    resources, outputs = dev_template_json["Resources"], dev_template_json["Outputs"]
    instance_role = next(k for k, r in resources.items() if r["Type"] == "AWS::IAM::Role" and "InstanceRole" in k)
    policies = [
        p
        for p in _of_type(dev_template_json, "AWS::IAM::Policy").values()
        if {"Ref": instance_role} in p["Properties"]["Roles"]
    ]
    (policy,) = policies
    statements = {s["Sid"]: s for s in policy["Properties"]["PolicyDocument"]["Statement"]}
    assert set(statements) == {"SiteAssetRead", "DashboardSecretsRead", "BootSignal", "NginxLogsWrite"}
    site = statements["SiteAssetRead"]
    assert site["Action"] == "s3:GetObject"
    object_arn = site["Resource"]["Fn::Join"][1]
    assert object_arn[-1].startswith("/") and object_arn[-1].endswith(".zip") and "*" not in json.dumps(site)
    secrets = statements["DashboardSecretsRead"]
    assert secrets["Action"] == "secretsmanager:GetSecretValue"
    assert secrets["Resource"] == [
        outputs["AdminKeySecretArn"]["Value"],
        outputs["DashboardPasswordSecretArn"]["Value"],
    ]


def test_functions_get_the_digest_key_and_may_read_only_its_current_value(dev_template_json):
    """The digest key (the secret with CursorSecret's logical id): its ARN in every function's environment,
    GetSecretValue on exactly it (no version listing: it never rotates). Cursor keys: tests/infra/test_secrets.py."""
    (secret_id,) = [k for k in _of_type(dev_template_json, "AWS::SecretsManager::Secret") if "CursorSecret" in k]
    for fn in _route_functions(dev_template_json).values():
        assert fn["Properties"]["Environment"]["Variables"]["DIGEST_KEY_SECRET_ARN"] == {"Ref": secret_id}
    statements = role_access.statements(dev_template_json)
    readers = [s for s in statements if "secretsmanager" in json.dumps(s["Action"])]
    # and the rotating secrets' statements, each scoped to the functions that use it: test_function_access.py;
    # production's receipt key: tests/infra/test_receipt_key.py
    assert sorted(s["Sid"] for s in readers) == [
        "AdminKeyRead",
        "CursorKeyRead",
        "DigestKeyRead",
        "GameKeyRead",
        "TokenKeyRead",
    ]
    assert [s["Sid"] for s in readers if "Condition" not in s] == ["DigestKeyRead"]  # the only one every function reads
    (reader,) = [s for s in readers if s["Sid"] == "DigestKeyRead"]
    assert (reader["Action"], reader["Resource"]) == ("secretsmanager:GetSecretValue", {"Ref": secret_id})
