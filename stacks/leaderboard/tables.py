"""The two tables: live scores with the rank index, and the append-only snapshot archive; or the user's own
(`existing_scores_table`, `existing_snapshots_table`), used as they are and, where the app made them, checked."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, cast

import jsii
from aws_cdk import CfnResource, RemovalPolicy, Stack
from aws_cdk import aws_dynamodb as ddb
from constructs import Construct, IValidation

from .paths import schema


def _string(name: str) -> ddb.Attribute:
    return ddb.Attribute(name=name, type=ddb.AttributeType.STRING)


class LeaderboardTables(Construct):
    """`scores` and `snapshots`: the stack's own tables, or those given (nothing is made for a table given, and
    nothing on it is changed). `made`: the tables made here (what `overrides` and the removal policy reach)."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        removal_policy: RemovalPolicy,
        deletion_protection: bool,
        overrides: Mapping[str, Any] | None = None,
        existing_scores: ddb.ITable | None = None,
        existing_snapshots: ddb.ITable | None = None,
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
        self.made: list[ddb.Table] = []
        self.scores: ddb.ITable = self._scores(common) if existing_scores is None else existing_scores
        self.snapshots: ddb.ITable = self._snapshots(common) if existing_snapshots is None else existing_snapshots
        for table in self.made:
            for name, value in (overrides or {}).items():
                cast(CfnResource, table.node.default_child).add_property_override(name, value)
        # At synth, when the app has configured the tables it passed in: a schema that is not ours fails it.
        if existing_scores is not None:
            self.node.add_validation(_SchemaCheck("existing_scores_table", existing_scores, _SCORES))
        if existing_snapshots is not None:
            self.node.add_validation(_SchemaCheck("existing_snapshots_table", existing_snapshots, _SNAPSHOTS))

    def _scores(self, common: dict[str, Any]) -> ddb.Table:
        # No table_name: CloudFormation generates one per stack, so stages deploy side by side.
        scores = ddb.Table(
            self,
            "Scores",
            partition_key=_string(schema.SCORES_PARTITION_KEY),
            sort_key=_string(schema.SCORES_SORT_KEY),
            time_to_live_attribute=schema.TTL_ATTRIBUTE,
            # Old and new image of every change: the rank-counter function recounts from it
            # (lambda_src/cdk_leaderboard_lambda/operations/counter_upkeep.py).
            stream=ddb.StreamViewType.NEW_AND_OLD_IMAGES,
            **common,
        )
        scores.add_global_secondary_index(
            index_name=schema.RANK_INDEX,
            partition_key=_string(schema.RANK_INDEX_PARTITION_KEY),
            sort_key=_string(schema.RANK_INDEX_SORT_KEY),
            projection_type=ddb.ProjectionType.INCLUDE,
            non_key_attributes=list(schema.RANK_INDEX_PROJECTED),
        )
        self.made.append(scores)
        return scores

    def _snapshots(self, common: dict[str, Any]) -> ddb.Table:
        snapshots = ddb.Table(
            self,
            "Snapshots",
            partition_key=_string(schema.SNAPSHOTS_PARTITION_KEY),
            sort_key=_string(schema.SNAPSHOTS_SORT_KEY),
            **common,
        )
        self.made.append(snapshots)
        return snapshots

    @property
    def rank_index_arn(self) -> str:
        return f"{self.scores.table_arn}/index/{schema.RANK_INDEX}"


# What a table must have, in CloudFormation's words (AWS::DynamoDB::Table): key schema, indexes, stream, TTL.
_SCORES: Mapping[str, Any] = MappingProxyType(
    {
        "keys": ((schema.SCORES_PARTITION_KEY, "HASH"), (schema.SCORES_SORT_KEY, "RANGE")),
        "index": (
            schema.RANK_INDEX,
            ((schema.RANK_INDEX_PARTITION_KEY, "HASH"), (schema.RANK_INDEX_SORT_KEY, "RANGE")),
        ),
        "stream": ddb.StreamViewType.NEW_AND_OLD_IMAGES.value,
        "ttl": schema.TTL_ATTRIBUTE,
    }
)
_SNAPSHOTS: Mapping[str, Any] = MappingProxyType(
    {
        "keys": ((schema.SNAPSHOTS_PARTITION_KEY, "HASH"), (schema.SNAPSHOTS_SORT_KEY, "RANGE")),
    }
)


def _keys(key_schema: Any) -> tuple[tuple[str, str], ...]:
    return tuple((k.get("attributeName"), k.get("keyType")) for k in key_schema or ())


def _described(keys: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{name} ({kind})" for name, kind in keys) or "none"


def schema_problems(prop: str, table: ddb.ITable, expected: Mapping[str, Any]) -> list[str]:
    """What a Table made in the app (its CloudFormation properties can be read) lacks of `expected`; nothing for
    an imported table, which synth cannot see, nor for a TableV2 (its AWS::DynamoDB::GlobalTable's stream setting
    does not come through jsii to Python)."""
    cfn = table.node.default_child
    if not isinstance(cfn, ddb.CfnTable):
        return []
    resolve = Stack.of(cfn).resolve
    problems = []
    types = {a["attributeName"]: a["attributeType"] for a in resolve(cfn.attribute_definitions) or ()}
    keys = _keys(resolve(cfn.key_schema))
    if keys != expected["keys"]:
        problems.append(f"its key schema is {_described(keys)}, not {_described(expected['keys'])}")
    if "index" in expected:
        name, index_keys = expected["index"]
        indexes = {i["indexName"]: i for i in resolve(cfn.global_secondary_indexes) or ()}
        index = indexes.get(name)
        if index is None:
            problems.append(f"it has no global secondary index {name!r} (it has: {', '.join(indexes) or 'none'})")
        else:
            if _keys(index.get("keySchema")) != index_keys:
                problems.append(
                    f"its index {name!r} has keys {_described(_keys(index.get('keySchema')))}, "
                    f"not {_described(index_keys)}"
                )
            projection = index.get("projection") or {}
            projected = set(projection.get("nonKeyAttributes") or ())
            if projection.get("projectionType") != "ALL" and not set(schema.RANK_INDEX_PROJECTED) <= projected:
                missing = sorted(set(schema.RANK_INDEX_PROJECTED) - projected)
                problems.append(f"its index {name!r} does not project {', '.join(missing)} (INCLUDE them, or ALL)")
        keys += index_keys
    wrong = sorted({name for name, _ in keys if name in types and types[name] != "S"})
    if wrong:
        problems.append(f"its key attributes {', '.join(wrong)} must be strings (S)")
    if "stream" in expected:
        view = (resolve(cfn.stream_specification) or {}).get("streamViewType")
        if view != expected["stream"]:
            problems.append(f"its stream is {view or 'off'}, not {expected['stream']}")
    if "ttl" in expected:
        ttl = resolve(cfn.time_to_live_specification) or {}
        if not (ttl.get("enabled") and ttl.get("attributeName") == expected["ttl"]):
            problems.append(f"its TTL is not on {expected['ttl']!r}")
    return [f"{prop}: {problem}" for problem in problems]


@jsii.implements(IValidation)
class _SchemaCheck:
    def __init__(self, prop: str, table: ddb.ITable, expected: Mapping[str, Any]) -> None:
        self._args = (prop, table, expected)

    def validate(self) -> list[str]:
        return schema_problems(*self._args)
