"""The two tables: live scores with the rank index, and the append-only snapshot history."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from aws_cdk import CfnResource, RemovalPolicy
from aws_cdk import aws_dynamodb as ddb
from constructs import Construct

from .paths import schema


def _string(name: str) -> ddb.Attribute:
    return ddb.Attribute(name=name, type=ddb.AttributeType.STRING)


class LeaderboardTables(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        removal_policy: RemovalPolicy,
        deletion_protection: bool,
        overrides: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(scope, id)
        common: dict[str, Any] = dict(
            billing_mode=ddb.BillingMode.PAY_PER_REQUEST,  # nothing to pay at idle
            point_in_time_recovery_specification=ddb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            # Encrypted at rest with the AWS owned key: free, and no KMS permission to manage.
            encryption=ddb.TableEncryption.DEFAULT,
            removal_policy=removal_policy,
            deletion_protection=deletion_protection,
        )
        # No table_name: CloudFormation generates one per stack, so stages deploy side by side.
        self.scores = ddb.Table(
            self,
            "Scores",
            partition_key=_string(schema.SCORES_PARTITION_KEY),
            sort_key=_string(schema.SCORES_SORT_KEY),
            time_to_live_attribute=schema.TTL_ATTRIBUTE,
            # Old and new image of every change: the rank-counter function recounts from it
            # (lambda_src/leaderboard/counting.py).
            stream=ddb.StreamViewType.NEW_AND_OLD_IMAGES,
            **common,
        )
        self.scores.add_global_secondary_index(
            index_name=schema.RANK_INDEX,
            partition_key=_string(schema.RANK_INDEX_PARTITION_KEY),
            sort_key=_string(schema.RANK_INDEX_SORT_KEY),
            projection_type=ddb.ProjectionType.INCLUDE,
            non_key_attributes=list(schema.RANK_INDEX_PROJECTED),
        )
        self.snapshots = ddb.Table(
            self,
            "Snapshots",
            partition_key=_string(schema.SNAPSHOTS_PARTITION_KEY),
            sort_key=_string(schema.SNAPSHOTS_SORT_KEY),
            **common,
        )
        for table in (self.scores, self.snapshots):
            for name, value in (overrides or {}).items():
                cast(CfnResource, table.node.default_child).add_property_override(name, value)

    @property
    def rank_index_arn(self) -> str:
        return f"{self.scores.table_arn}/index/{schema.RANK_INDEX}"
