"""Live updates through AWS AppSync Events: an Event API with the `leaderboard` channel namespace (one channel per
board and period kind, lambda_src/leaderboard/live_channels.py), the broadcaster's publish permission on that
namespace only, and the live-broadcaster function as a second consumer of the scores table's stream
(lambda_src/leaderboard/broadcasting.py).

Auth: clients (browsers, game clients) connect and subscribe with an API key, which grants nothing else: the
namespace takes publishes only signed with IAM, and only the shared role may sign them (appsync:EventPublish on
this namespace). Discovery (GET /leaderboards/{board}) hands the key out, so a rotated key reaches clients without
a release. AppSync API keys expire (at most 365 days ahead): the key's expiry is the prop
`live=Live(api_key_expires=...)`, a fixed date (synth stays pure), and `Live(api_key_generation=...)` mints a new key
(docs/API.md, "Live updates").
"""

from __future__ import annotations

from datetime import UTC, datetime

from aws_cdk import Duration, Names, Stack
from aws_cdk import aws_appsync as appsync
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as event_sources
from constructs import Construct

from .paths import live_channels
from .props import LeaderboardProps
from .rank_counter_stream import entry_changes, failure_queue, send_statement
from .tables import LeaderboardTables

API_KEY, IAM = appsync.AppSyncAuthorizationType.API_KEY, appsync.AppSyncAuthorizationType.IAM


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
    ) -> None:
        super().__init__(scope, id)
        # Connect: API key (subscribers) or IAM; subscribe: API key; publish: IAM only (the namespace says it again,
        # so a namespace added later by hand does not inherit anything wider).
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
                ],
                connection_auth_mode_types=[API_KEY, IAM],
                default_publish_auth_mode_types=[IAM],
                default_subscribe_auth_mode_types=[API_KEY],
            ),
        )
        self.namespace = appsync.ChannelNamespace(
            self,
            "Namespace",
            api=self.api,
            channel_namespace_name=live_channels.NAMESPACE,
            authorization_config=appsync.NamespaceAuthConfig(
                publish_auth_mode_types=[IAM], subscribe_auth_mode_types=[API_KEY]
            ),
        )
        self.api_key = self._subscribe_key(props)

        self.http_url = f"https://{self.api.http_dns}"
        self.realtime_url = f"wss://{self.api.realtime_dns}/event/realtime"
        self.http_host: str = self.api.http_dns
        # The broadcaster publishes; the admin function (GET /leaderboards/{board}) tells clients how to follow.
        self.broadcaster_environment = {"LIVE_EVENTS_HTTP_URL": self.http_url}
        self.discovery_environment = {
            "LIVE_EVENTS_HTTP_URL": self.http_url,
            "LIVE_EVENTS_REALTIME_URL": self.realtime_url,
            "LIVE_EVENTS_API_KEY": self.api_key.attr_api_key,
        }

        # For the shared role's own inline policy: publishing to this namespace's channels, nothing else of AppSync.
        # The same action and ARN as CDK's own ChannelNamespace.grant_publish (aws-cdk-lib 2.275); publishing over
        # HTTP needs no appsync:EventConnect (that one authorizes a WebSocket connection signed with IAM).
        self.role_statements: list[iam.PolicyStatement] = [
            iam.PolicyStatement(
                sid="LivePublish",
                actions=["appsync:EventPublish"],
                resources=[self.namespace_arn],
            )
        ]

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

    def _subscribe_key(self, props: LeaderboardProps) -> appsync.CfnApiKey:
        """The API key the EventApi made, with the prop's fixed expiry (epoch seconds, AppSync rounds it down to
        the hour). Set on the L1: CDK's own expiry check compares with the clock at synth, which would make the
        same app synthesize on one day and fail on another."""
        (key,) = [c for c in self.api.node.find_all() if isinstance(c, appsync.CfnApiKey)]
        expires = datetime.fromisoformat(props.live.api_key_expires).replace(tzinfo=UTC)
        key.add_property_override("Expires", int(expires.timestamp()))
        return key
