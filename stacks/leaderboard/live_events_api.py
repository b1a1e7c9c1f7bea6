"""Live updates through AWS AppSync Events: an Event API with the `leaderboard` channel namespace (one channel per
board and period kind, lambda_src/cdk_leaderboard_lambda/shared/live_channels.py), the broadcaster's publish permission
on that namespace only, and the live-broadcaster function as a second consumer of the scores table's stream
(lambda_src/cdk_leaderboard_lambda/operations/broadcasting.py).

Auth: clients (browsers, game clients) connect and subscribe with a live subscribe token of their own, one per
connection (GET /leaderboards/{board}/scores), which the Event API's Lambda authorizer checks on connect and on each
subscribe; it grants nothing else: the namespace takes publishes only signed with IAM, and only the shared role may
sign them (appsync:EventPublish on this namespace). Discovery (GET /leaderboards/{board}) says where to connect and
where to get a token (docs/API.md, "Live updates"). The API key AppSync made with the API is still there and still
renewed (a schedule runs the period-closer function with {"task": "renew-live-key"}, extending the same key to 90
days ahead every 6 hours: operations/live_key.py), because deployed stacks hold its id; no authorization mode names
it, so it admits nothing (docs/OPERATIONS.md, "The live API key").
"""

from __future__ import annotations

from aws_cdk import Duration, Names, Stack
from aws_cdk import aws_appsync as appsync
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as event_sources
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from .paths import limits, live_channels
from .props import LeaderboardProps
from .rank_counter_stream import entry_changes, failure_queue, send_statement
from .tables import LeaderboardTables

API_KEY, IAM = appsync.AppSyncAuthorizationType.API_KEY, appsync.AppSyncAuthorizationType.IAM
LAMBDA = appsync.AppSyncAuthorizationType.LAMBDA
REALTIME_PATH = "/event/realtime"  # the Event API's WebSocket endpoint (publishes: POST /event)


class LiveUpdates(Construct):
    """The Event API, its namespace and subscribe key, and the broadcaster's mapping on the scores table's stream.

    It touches no function and no role: `role_statements` (publishing to the namespace, the failure queue) and
    `broadcaster_environment` / `discovery_environment` (the endpoints and the key) are what the composition root
    hands to the shared role, the live-broadcaster and the admin (discovery) function."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        props: LeaderboardProps,
        tables: LeaderboardTables,
        broadcaster: lambda_.IFunction,
        renewer: lambda_.IFunction,
        authorizer: lambda_.IFunction,
    ) -> None:
        super().__init__(scope, id)
        # Connect: a live subscribe token checked by the Lambda authorizer (subscribers) or IAM; subscribe: the
        # authorizer only; publish: IAM only (the namespace says it again, so a namespace added later by hand does not
        # inherit anything wider). The API key AppSync made with the API stays (its id and renewal are what stacks
        # already deployed hold) but admits nothing: no mode names API_KEY (lambda_src/cdk_leaderboard_lambda/
        # operations/live_access.py). The authorizer is a function of its own (live-authorizer), never one that serves
        # the REST API. AppSync refuses a string not shaped like a live token without calling it
        # (IdentityValidationExpression), and keeps a refusal for a token's life (AuthorizerResultTtlInSeconds): the
        # function answers an admission with ttlOverride 0, so each connect and subscribe of a token is counted.
        self.api = appsync.EventApi(
            self,
            "EventApi",
            api_name=Names.unique_resource_name(self, max_length=50, separator="-", allowed_special_characters="-"),
            authorization_config=appsync.EventApiAuthConfig(
                auth_providers=[
                    appsync.AppSyncAuthProvider(
                        authorization_type=API_KEY,
                        api_key_config=appsync.AppSyncApiKeyConfig(
                            name=f"subscribe-{props.live.api_key_generation}",
                            description="Subscribe-only key of live updates, handed out by discovery",
                        ),
                    ),
                    appsync.AppSyncAuthProvider(authorization_type=IAM),
                    appsync.AppSyncAuthProvider(
                        authorization_type=LAMBDA,
                        lambda_authorizer_config=appsync.AppSyncLambdaAuthorizerConfig(
                            handler=authorizer,
                            results_cache_ttl=Duration.seconds(limits.LIVE_AUTHORIZER_CACHE_SECONDS),
                            validation_regex=limits.LIVE_TOKEN_PATTERN,
                        ),
                    ),
                ],
                connection_auth_mode_types=[LAMBDA, IAM],
                default_publish_auth_mode_types=[IAM],
                default_subscribe_auth_mode_types=[LAMBDA],
            ),
        )
        self.namespace = appsync.ChannelNamespace(
            self,
            "Namespace",
            api=self.api,
            channel_namespace_name=live_channels.NAMESPACE,
            authorization_config=appsync.NamespaceAuthConfig(
                publish_auth_mode_types=[IAM], subscribe_auth_mode_types=[LAMBDA]
            ),
        )
        self.api_key = self._subscribe_key(props)

        self.http_url = f"https://{self.api.http_dns}"
        self.realtime_url = f"wss://{self.api.realtime_dns}{REALTIME_PATH}"
        self.http_host: str = self.api.http_dns
        # The broadcaster publishes; the admin function (GET /leaderboards/{board}) tells clients how to follow.
        self.broadcaster_environment = {"LIVE_EVENTS_HTTP_URL": self.http_url}
        self.discovery_environment = {
            "LIVE_EVENTS_HTTP_URL": self.http_url,
            "LIVE_EVENTS_REALTIME_URL": self.realtime_url,
        }
        # The function that hands out tokens (score-submit): a flag, not the API's URL (the functions share one
        # role, and the API names one of them as its authorizer).
        self.authorizer_environment = {"LIVE_TOKENS": "1"}
        self.web_acl = self._web_acl(props)
        # The renewal (the period closer, on its own schedule) names the key to extend.
        self.renewal_environment = {
            "LIVE_EVENTS_API_ID": self.api.api_id,
            "LIVE_EVENTS_API_KEY_ID": self.api_key.attr_api_key_id,
        }

        # For the shared role's own inline policy: publishing to this namespace's channels, nothing else of AppSync.
        # The same action and ARN as CDK's own ChannelNamespace.grant_publish (aws-cdk-lib 2.275); publishing over
        # HTTP needs no appsync:EventConnect (that one authorizes a WebSocket connection signed with IAM).
        self.role_statements: list[iam.PolicyStatement] = [
            iam.PolicyStatement(
                sid="LivePublish",
                actions=["appsync:EventPublish"],
                resources=[self.namespace_arn],
            ),
            # Extending this API's subscribe key, for the renewal only. The Service Authorization Reference ("Actions,
            # resources, and condition keys for AWS AppSync") lists no resource type for appsync:UpdateApiKey, and
            # for such an action a statement must name "*": so "*", narrowed to the one function that renews
            # (lambda:SourceFunctionArn), the AWS call no other function nor a leaked credential can make.
            iam.PolicyStatement(
                sid="LiveKeyRenewal",
                actions=["appsync:UpdateApiKey"],
                resources=["*"],
                conditions={"ArnEquals": {"lambda:SourceFunctionArn": [renewer.function_arn]}},
            ),
        ]
        # The renewal: one more target of the season's schedule (the same function, so no rule or permission of its
        # own: fewer resources against CloudFormation's 500 a stack), every
        # CLOSE_EVERY_MINUTES rather than every LIVE_KEY_RENEW_HOURS; UpdateApiKey is a free control-plane call.
        # A failed run is not retried: the next one is minutes away and the key weeks from lapsing.
        self.renewal_target = targets.LambdaFunction(
            renewer,
            event=events.RuleTargetInput.from_object({"task": limits.RENEW_LIVE_KEY_TASK}),
            retry_attempts=0,
        )

        # The second consumer of the scores table's stream (a shard serves two readers at once; rank-counter is the
        # first). No batching window: a change is published as soon as the stream has it; the publish itself waits
        # out the rest of a second since the last one, so a burst still makes one publish a second.
        self.failures = failure_queue(self, "BroadcasterFailures")
        self.role_statements.append(send_statement(self.failures))
        self.mapping = lambda_.EventSourceMapping(
            self,
            "BroadcasterMapping",
            target=broadcaster,
            event_source_arn=tables.scores.table_stream_arn,
            # Only what happens from now on matters to a live view: nothing of the stream's last 24 h is replayed.
            starting_position=lambda_.StartingPosition.LATEST,
            batch_size=100,
            max_batching_window=Duration.seconds(0),
            # A publish that keeps failing is given up quickly: the next change publishes the whole top again,
            # while a batch retried for long would hold the shard's later changes back.
            retry_attempts=2,
            max_record_age=Duration.minutes(1),
            on_failure=event_sources.SqsDlq(self.failures),
            filters=entry_changes(),
        )

    @property
    def namespace_arn(self) -> str:
        """arn:<partition>:appsync:<region>:<account>:apis/<api id>/channelNamespace/leaderboard"""
        return Stack.of(self).format_arn(
            service="appsync",
            resource="apis",
            resource_name=f"{self.api.api_id}/channelNamespace/{live_channels.NAMESPACE}",
        )

    def _web_acl(self, props: LeaderboardProps) -> wafv2.CfnWebACL | None:
        """A regional web ACL on the Event API (production, like the REST API's; `Live(waf=...)`): an address past
        `Live(connects_per_5_minutes_per_ip)` WebSocket connects in 5 minutes is blocked before AppSync authorizes
        anything, so a flood of connects from one address invokes no authorizer. WAF sees HTTP requests: the
        WebSocket handshake on /event/realtime, and publishes on /event (the broadcaster's, never counted)."""
        limit = props.effective_live_waf_limit
        if limit is None:
            return None
        prefix = Names.unique_resource_name(self, max_length=100, separator="-", allowed_special_characters="-")

        def visibility(name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
            return wafv2.CfnWebACL.VisibilityConfigProperty(
                cloud_watch_metrics_enabled=True, metric_name=f"{prefix}-{name}", sampled_requests_enabled=True
            )

        connects = wafv2.CfnWebACL.StatementProperty(
            byte_match_statement=wafv2.CfnWebACL.ByteMatchStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(uri_path={}),
                positional_constraint="STARTS_WITH",
                search_string=REALTIME_PATH,
                text_transformations=[
                    wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="URL_DECODE"),
                    wafv2.CfnWebACL.TextTransformationProperty(priority=1, type="NORMALIZE_PATH"),
                ],
            )
        )
        acl = wafv2.CfnWebACL(
            self,
            "WebAcl",
            scope="REGIONAL",
            description=f"Leaderboard {props.stage}: WebSocket connects per address on the live Event API",
            default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
            visibility_config=visibility("live"),
            rules=[
                wafv2.CfnWebACL.RuleProperty(
                    name="LiveConnectsPerIp",
                    priority=0,
                    action=wafv2.CfnWebACL.RuleActionProperty(block={}),
                    statement=wafv2.CfnWebACL.StatementProperty(
                        rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                            limit=limit,
                            evaluation_window_sec=300,
                            aggregate_key_type="IP",
                            scope_down_statement=connects,
                        )
                    ),
                    visibility_config=visibility("live-connects"),
                )
            ],
        )
        # AWS documents WAF for Event APIs ("Using AWS WAF to protect AWS AppSync Event APIs"): the association names
        # the Event API's ARN.
        wafv2.CfnWebACLAssociation(self, "WebAclAssociation", resource_arn=self.api.api_arn, web_acl_arn=acl.attr_arn)
        return acl

    def _subscribe_key(self, props: LeaderboardProps) -> appsync.CfnApiKey:
        """The API key the EventApi made, with no `Expires`: AppSync gives it 7 days from creation and the
        renewal takes it from there. A fixed date would fail to deploy once it is more than 365 days ahead or
        less than one; CloudFormation only calls UpdateApiKey when a property in the template changes, so an
        expiry the renewal moved is left alone by later deploys."""
        (key,) = [c for c in self.api.node.find_all() if isinstance(c, appsync.CfnApiKey)]
        return key
