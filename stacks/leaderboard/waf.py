"""A regional WAF web ACL on the API's stage (on in production by default): a per-client rate limit on reads and on
players' devices, keyed on what a client cannot write.

A client is its connecting address (the source address WAF sees), or, on a request that proves it came through this
stack's CloudFront edge, the viewer's address that the edge itself wrote (`VIEWER_IP_HEADER`). The proof is a secret
origin custom header (`EDGE_PROOF_HEADER`): CloudFront adds it to every origin request, overwriting any a viewer sent,
and its value is a Secrets Manager secret that the template holds only as a dynamic reference. Never the first
address of X-Forwarded-For: WAF's forwarded-IP key takes the first address, which the client writes.

Built into the scope it is given (the construct `Api`), keeping the logical ids deployments have.
"""

from __future__ import annotations

import re
from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from .nag import acknowledge
from .paths import routes
from .props import LeaderboardProps

# The edge's proof of origin: CloudFront sends it on every origin request (edge.py); WAF trusts the viewer header
# only on requests that carry it with the secret's value.
EDGE_PROOF_HEADER = "x-leaderboard-edge"
# The viewer's address as CloudFront saw the connection (event.viewer.ip), written by the edge's viewer-request
# function over anything the viewer sent. Not CloudFront-Viewer-Address: that one is "address:port", and a port per
# connection would make every new connection a new client.
VIEWER_IP_HEADER = "x-leaderboard-viewer-ip"
# Routes that players' devices call with no key plan behind them: each request is counted per client, whatever its
# method (a run-token score without its header too: API Gateway's 401 costs no invocation, but it is a request).
# The token route takes the game key, but a leaked or replayed mint is what a limit per client is for.
CLIENT_ROUTE_HANDLERS = ("issue_token", "start_run", "run_score")
# The header API Gateway reads a REST API key from (the API's apiKeySource HEADER).
API_KEY_HEADER = "x-api-key"


def client_route_pattern() -> str:
    """A regular expression for the client routes' paths (from the route table), anchored at the end only: WAF sees
    the stage's name before them."""
    paths = sorted({r.path for r in routes.ROUTES if r.operation in CLIENT_ROUTE_HANDLERS})
    if len(paths) != len(CLIENT_ROUTE_HANDLERS):
        raise ValueError(f"the route table lost a client route: {CLIENT_ROUTE_HANDLERS} gave {paths}")
    parts = [
        "".join("[^/]+" if s.startswith("{") else re.escape(s) for s in re.split(r"(\{[^}]+\})", p)) for p in paths
    ]
    return f"({'|'.join(parts)})/?$"


class Waf:
    """The web ACL (`web_acl`, None where the prop turns WAF off), its association with `stage`, and the secret the
    edge proves itself with (`edge_secret`; both None without a WAF)."""

    def __init__(self, scope: Construct, *, props: LeaderboardProps, stage: apigw.Stage, metric_prefix: str) -> None:
        self.edge_secret: secretsmanager.Secret | None = None
        self.web_acl = self._web_acl(scope, props, stage, metric_prefix)

    def _web_acl(
        self, scope: Construct, props: LeaderboardProps, stage: apigw.Stage, metric_prefix: str
    ) -> wafv2.CfnWebACL | None:
        """Per client, a rate limit on reads (GET), on requests with a bearer token (run starts, run-token scores),
        on every request to the client routes (any method) and on every request without an API key, so that one
        caller cannot take a method's whole throttle bucket (which all callers share). Keyed writes are left to
        their key's usage plan (a game server sends many from one address). The keyless ones are a keyed route's
        flood as much as anyone's: API Gateway refuses them (403) before any function, but AWS documents neither that
        such a request is free nor that the key is checked before the method's shared throttle; a condition more in
        the rules' scope, not a rule more, so the web ACL's monthly price stays the same."""
        limit = props.effective_waf_limit
        if limit is None:
            acknowledge(
                stage,
                "APIG3",
                "WAF is off outside production (about 7 USD/month): per-method throttles and usage plans",
            )
            return None
        # A proof, not a credential (it opens nothing): who learns it can be counted under an address it names,
        # no more. A new value takes a deploy (CloudFormation resolves it then): docs/SECURITY.md.
        self.edge_secret = secretsmanager.Secret(
            scope,
            "EdgeProofSecret",
            description=f"Leaderboard {props.stage}: the header value by which the API's WAF knows its CloudFront",
            generate_secret_string=secretsmanager.SecretStringGenerator(exclude_punctuation=True, password_length=48),
            removal_policy=RemovalPolicy.DESTROY,
        )
        acknowledge(
            self.edge_secret,
            "SMG4",
            "Rotated by putting a new value and deploying: CloudFront and WAF read it only at deploy time",
        )

        def visibility(name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
            return wafv2.CfnWebACL.VisibilityConfigProperty(
                cloud_watch_metrics_enabled=True,
                metric_name=f"{metric_prefix}-{name}",
                sampled_requests_enabled=True,
            )

        def transforms(*types: str) -> list[wafv2.CfnWebACL.TextTransformationProperty]:
            return [wafv2.CfnWebACL.TextTransformationProperty(priority=i, type=t) for i, t in enumerate(types)]

        def statement(**kind: Any) -> wafv2.CfnWebACL.StatementProperty:
            return wafv2.CfnWebACL.StatementProperty(**kind)

        gets = statement(
            byte_match_statement=wafv2.CfnWebACL.ByteMatchStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(method={}),
                positional_constraint="EXACTLY",
                search_string="GET",
                text_transformations=transforms("NONE"),
            )
        )
        bearer = statement(  # the documented test for a header's presence
            size_constraint_statement=wafv2.CfnWebACL.SizeConstraintStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(single_header={"Name": "authorization"}),
                comparison_operator="GT",
                size=0,
                text_transformations=transforms("NONE"),
            )
        )
        client_routes = statement(  # decoded and normalized as API Gateway matches routes: %2F or // do not hide one
            regex_match_statement=wafv2.CfnWebACL.RegexMatchStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(uri_path={}),
                regex_string=client_route_pattern(),
                text_transformations=transforms("URL_DECODE", "NORMALIZE_PATH"),
            )
        )
        keyless = statement(  # no x-api-key at all (a wrong one is API Gateway's to refuse: WAF cannot know the keys)
            not_statement=wafv2.CfnWebACL.NotStatementProperty(
                statement=statement(
                    size_constraint_statement=wafv2.CfnWebACL.SizeConstraintStatementProperty(
                        field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(single_header={"Name": API_KEY_HEADER}),
                        comparison_operator="GT",
                        size=0,
                        text_transformations=transforms("NONE"),
                    )
                )
            )
        )
        counted = statement(
            or_statement=wafv2.CfnWebACL.OrStatementProperty(statements=[gets, bearer, client_routes, keyless])
        )
        from_edge = statement(
            byte_match_statement=wafv2.CfnWebACL.ByteMatchStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(single_header={"Name": EDGE_PROOF_HEADER}),
                positional_constraint="EXACTLY",
                search_string=self.edge_secret.secret_value.unsafe_unwrap(),  # a {{resolve:...}} reference
                text_transformations=transforms("NONE"),
            )
        )
        not_from_edge = statement(not_statement=wafv2.CfnWebACL.NotStatementProperty(statement=from_edge))

        def rate_rule(name: str, priority: int, **rate: Any) -> wafv2.CfnWebACL.RuleProperty:
            return wafv2.CfnWebACL.RuleProperty(
                name=name,
                priority=priority,
                action=wafv2.CfnWebACL.RuleActionProperty(block={}),
                statement=statement(
                    rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                        limit=limit, evaluation_window_sec=300, **rate
                    )
                ),
                visibility_config=visibility(name),
            )

        def both(a: wafv2.CfnWebACL.StatementProperty, b: wafv2.CfnWebACL.StatementProperty) -> Any:
            return statement(and_statement=wafv2.CfnWebACL.AndStatementProperty(statements=[a, b]))

        acl = wafv2.CfnWebACL(
            scope,
            "WebAcl",
            scope="REGIONAL",
            description=f"Leaderboard {props.stage}: per-client rate limit on the API reads and client routes",
            default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
            visibility_config=visibility("api"),
            rules=[
                # Callers that reach API Gateway themselves (game servers, anyone without the proof): their address.
                rate_rule(
                    "RateLimitPerIp", 0, aggregate_key_type="IP", scope_down_statement=both(counted, not_from_edge)
                ),
                # Through the edge (CloudFront's addresses): the viewer's, as the edge wrote it. A proven request
                # whose header is not an address is blocked (only a holder of the secret can send one).
                rate_rule(
                    "RateLimitPerViewer",
                    1,
                    aggregate_key_type="FORWARDED_IP",
                    forwarded_ip_config=wafv2.CfnWebACL.ForwardedIPConfigurationProperty(
                        header_name=VIEWER_IP_HEADER, fallback_behavior="MATCH"
                    ),
                    scope_down_statement=both(counted, from_edge),
                ),
            ],
        )
        wafv2.CfnWebACLAssociation(scope, "WebAclAssociation", resource_arn=stage.stage_arn, web_acl_arn=acl.attr_arn)
        return acl
