"""The stream of the scores table feeding the rank-counter function (see
lambda_src/cdk_leaderboard_lambda/operations/counter_upkeep.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import Duration
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as event_sources
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from .nag import acknowledge
from .paths import schema
from .tables import LeaderboardTables

RETRY_ATTEMPTS = 10


def entry_changes(hidden_too: bool = False) -> list[Mapping[str, Any]]:
    """Only changes of entries (items with a rank key): counters, boards and idempotency records are left out.
    hidden_too: also entries written hidden (a hidden player's rank key), for the consumer that reconciles them
    with the moderation decisions; four patterns then (a mapping takes five by default)."""
    attributes = (schema.RANK_INDEX_SORT_KEY, schema.HIDDEN_RANK_KEY) if hidden_too else (schema.RANK_INDEX_SORT_KEY,)
    return [
        lambda_.FilterCriteria.filter({"dynamodb": {image: {attribute: {"S": lambda_.FilterRule.exists()}}}})
        for image in ("NewImage", "OldImage")
        for attribute in attributes
    ]


def failure_queue(scope: Construct, id: str) -> sqs.Queue:
    """Where a stream consumer's mapping records a batch it gives up on (its shard, sequence numbers, error):
    encrypted (SQS-managed keys: no KMS key to pay for or grant), TLS only, kept 14 days; an alarm watches it
    (monitoring.py). The shared role needs `send_statement` on it and nothing else."""
    queue = sqs.Queue(
        scope,
        id,
        encryption=sqs.QueueEncryption.SQS_MANAGED,
        enforce_ssl=True,
        retention_period=Duration.days(14),
    )
    acknowledge(queue, "SQS3", "It is the dead-letter destination of a stream mapping (not of another queue)")
    return queue


def send_statement(queue: sqs.IQueue) -> iam.PolicyStatement:
    """sqs:SendMessage on a failure queue, for the shared role (Lambda sends with the function's role)."""
    return iam.PolicyStatement(
        sid=f"{queue.node.id}Send".replace("-", ""), actions=["sqs:SendMessage"], resources=[queue.queue_arn]
    )


class RankCounterSource(Construct):
    """The rank-counter function's mapping on the scores table's stream, and its failure queue. `role_statements`:
    what the shared role needs for it (the composition root hands them to `Functions.allow`)."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        tables: LeaderboardTables,
        function: lambda_.IFunction,
    ) -> None:
        super().__init__(scope, id)
        self.failures = failure_queue(self, "Failures")
        self.role_statements: list[iam.PolicyStatement] = [send_statement(self.failures)]
        self.mapping = lambda_.EventSourceMapping(
            self,
            "Mapping",
            target=function,
            event_source_arn=tables.scores.table_stream_arn,
            starting_position=lambda_.StartingPosition.TRIM_HORIZON,
            batch_size=1000,
            # Wait up to a second to fill a batch (the smallest window but none): fewer, larger recounts under
            # load; the counters' lag is this plus the stream's own delay and one recount.
            max_batching_window=Duration.seconds(1),
            # A recount is idempotent, so retrying a batch is always safe. A batch that keeps failing is halved
            # to isolate what fails, then given up after 10 attempts (or an hour): recounting is self-healing (the
            # next write into the same ranges recounts them), while a batch retried for the stream's 24 h would
            # hold every later record of its shard back. The lag alarm and the function's errors tell.
            bisect_batch_on_error=True,
            retry_attempts=RETRY_ATTEMPTS,
            max_record_age=Duration.hours(1),
            on_failure=event_sources.SqsDlq(self.failures),  # the batch given up on, for a look (and the alarm)
            parallelization_factor=2,
            filters=entry_changes(hidden_too=True),
        )
