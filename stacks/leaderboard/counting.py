"""The stream of the scores table feeding the rank-counter function (see lambda_src/leaderboard/counting.py)."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from .data import LeaderboardTables
from .paths import schema


class RankCounterSource(Construct):
    def __init__(self, scope: Construct, id: str, *, tables: LeaderboardTables, function: lambda_.IFunction) -> None:
        super().__init__(scope, id)
        # Only changes of entries (items with a rank key): counters, boards and idempotency records are left out.
        entry_changes = [
            lambda_.FilterCriteria.filter(
                {"dynamodb": {image: {schema.RANK_INDEX_SORT_KEY: {"S": lambda_.FilterRule.exists()}}}}
            )
            for image in ("NewImage", "OldImage")
        ]
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
            # Retries unbounded (the default): a recount is idempotent, so retrying a whole batch is always safe;
            # records are only given up when they leave the stream (24 h).
            bisect_batch_on_error=False,
            parallelization_factor=2,
            filters=entry_changes,
        )
