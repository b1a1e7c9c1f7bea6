"""A regional WAF web ACL on the API's stage (on in production by default): a per-client rate limit on reads.

Built into the scope it is given (the construct `Api`), keeping the logical ids deployments have.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from .nag import acknowledge
from .props import LeaderboardProps

# CloudFront puts the viewer's address in it (appended, so the first address is the client's own or what the client
# claimed: a per-client limit on it is a guard against a careless client, not a forger).
FORWARDED_FOR_HEADER = "X-Forwarded-For"


class Waf:
    """The web ACL (`web_acl`, None where the prop turns WAF off) and its association with `stage`."""

    def __init__(self, scope: Construct, *, props: LeaderboardProps, stage: apigw.Stage, metric_prefix: str) -> None:
        self.web_acl = self._web_acl(scope, props, stage, metric_prefix)

    def _web_acl(
        self, scope: Construct, props: LeaderboardProps, stage: apigw.Stage, metric_prefix: str
    ) -> wafv2.CfnWebACL | None:
        """A regional WAF web ACL on the stage (on in production by default): per client, a rate limit on reads, so
        that one caller cannot take a public method's whole throttle bucket (which all callers share). Through the
        edge every request comes from CloudFront's addresses, so there the client is the viewer's address that
        CloudFront puts first in X-Forwarded-For; a request without that header is counted by its source address.
        Writes are left to their key's usage plan (a game server sends many from one address); requests with a bearer
        token (players' devices: run starts, run-token submissions, which no usage plan meters) count with the
        reads."""
        limit = props.effective_waf_limit
        if limit is None:
            acknowledge(
                stage,
                "APIG3",
                "WAF is off outside production (about 7 USD/month): per-method throttles and usage plans",
            )
            return None

        def visibility(name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
            return wafv2.CfnWebACL.VisibilityConfigProperty(
                cloud_watch_metrics_enabled=True,
                metric_name=f"{metric_prefix}-{name}",
                sampled_requests_enabled=True,
            )

        reads = wafv2.CfnWebACL.StatementProperty(
            byte_match_statement=wafv2.CfnWebACL.ByteMatchStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(method={}),
                positional_constraint="EXACTLY",
                search_string="GET",
                text_transformations=[wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")],
            )
        )
        forwarded = wafv2.CfnWebACL.StatementProperty(  # the documented test for a header's presence
            size_constraint_statement=wafv2.CfnWebACL.SizeConstraintStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(
                    single_header={"Name": FORWARDED_FOR_HEADER.lower()}
                ),
                comparison_operator="GT",
                size=0,
                text_transformations=[wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")],
            )
        )
        bearer = wafv2.CfnWebACL.StatementProperty(  # a player's device: a run start or a run-token submission
            size_constraint_statement=wafv2.CfnWebACL.SizeConstraintStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(single_header={"Name": "authorization"}),
                comparison_operator="GT",
                size=0,
                text_transformations=[wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")],
            )
        )
        reads = wafv2.CfnWebACL.StatementProperty(
            or_statement=wafv2.CfnWebACL.OrStatementProperty(statements=[reads, bearer])
        )
        not_forwarded = wafv2.CfnWebACL.StatementProperty(
            not_statement=wafv2.CfnWebACL.NotStatementProperty(statement=forwarded)
        )

        def rate_rule(name: str, priority: int, **rate: Any) -> wafv2.CfnWebACL.RuleProperty:
            return wafv2.CfnWebACL.RuleProperty(
                name=name,
                priority=priority,
                action=wafv2.CfnWebACL.RuleActionProperty(block={}),
                statement=wafv2.CfnWebACL.StatementProperty(
                    rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                        limit=limit, evaluation_window_sec=300, **rate
                    )
                ),
                visibility_config=visibility(name),
            )

        acl = wafv2.CfnWebACL(
            scope,
            "WebAcl",
            scope="REGIONAL",
            description=f"Leaderboard {props.stage}: per-client rate limit on the API reads",
            default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
            visibility_config=visibility("api"),
            rules=[
                rate_rule(
                    "RateLimitPerIp",
                    0,
                    aggregate_key_type="IP",
                    scope_down_statement=wafv2.CfnWebACL.StatementProperty(
                        and_statement=wafv2.CfnWebACL.AndStatementProperty(statements=[reads, not_forwarded])
                    ),
                ),
                rate_rule(
                    "RateLimitPerForwardedIp",
                    1,
                    aggregate_key_type="FORWARDED_IP",
                    # Only requests that carry the header are counted (WAF skips the rule otherwise); one whose
                    # first address is not an address is blocked.
                    forwarded_ip_config=wafv2.CfnWebACL.ForwardedIPConfigurationProperty(
                        header_name=FORWARDED_FOR_HEADER, fallback_behavior="MATCH"
                    ),
                    scope_down_statement=reads,
                ),
            ],
        )
        wafv2.CfnWebACLAssociation(scope, "WebAclAssociation", resource_arn=stage.stage_arn, web_acl_arn=acl.attr_arn)
        return acl
