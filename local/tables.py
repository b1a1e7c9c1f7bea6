"""Create (or recreate) the local tables from the template's table specs."""

from __future__ import annotations

import sys

from local.template import TableSpec


def create_tables(ddb, specs: list[TableSpec]) -> None:
    """Create each missing table, with its indexes and TTL; existing (persisted) ones are kept."""
    existing = set(_all_table_names(ddb))
    for spec in specs:
        if spec.local_name not in existing:
            _create(ddb, spec)
        elif _shape(ddb.describe_table(TableName=spec.local_name)["Table"]) != _shape(spec.create_args):
            print(
                f"warning: the persisted table {spec.local_name} no longer matches the template "
                "(delete the --persist folder to recreate it)",
                file=sys.stderr,
            )


def _shape(table: dict) -> tuple:
    """Key schema and index keys: what must match for the handlers' queries to work."""
    keys = lambda ks: tuple((k["AttributeName"], k["KeyType"]) for k in ks)  # noqa: E731
    indexes = sorted((ix["IndexName"], keys(ix["KeySchema"])) for ix in table.get("GlobalSecondaryIndexes", []))
    return keys(table["KeySchema"]), tuple(indexes)


def reset_tables(ddb, specs: list[TableSpec]) -> None:
    """Drop and recreate every table: an empty database in milliseconds (in-memory engine)."""
    existing = set(_all_table_names(ddb))
    for spec in specs:
        if spec.local_name in existing:
            ddb.delete_table(TableName=spec.local_name)
            ddb.get_waiter("table_not_exists").wait(TableName=spec.local_name, WaiterConfig={"Delay": 0.1})
        _create(ddb, spec)


def _create(ddb, spec: TableSpec) -> None:
    ddb.create_table(TableName=spec.local_name, **spec.create_args)
    ddb.get_waiter("table_exists").wait(TableName=spec.local_name, WaiterConfig={"Delay": 0.1})
    if spec.ttl_attribute:
        ddb.update_time_to_live(
            TableName=spec.local_name,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": spec.ttl_attribute},
        )


def _all_table_names(ddb) -> list[str]:
    names: list[str] = []
    for page in ddb.get_paginator("list_tables").paginate():
        names += page["TableNames"]
    return names
