"""The original design's algorithm, written for the benchmark: the yardstick.

Rank = 1 + COUNT of the rank-index entries ahead of the player (Select=COUNT, paged at 1 MB);
total = COUNT of the whole board partition; percentile = round((total - rank) / total * 100, 1).
Top-N and pages are one index query. A submission is one conditional keep-best UpdateItem plus
the rank the response reports, by COUNT.

It reads and writes the same items as the handlers (the same table, rank index and item shape),
on its own boto3 client, so the benchmark meters it separately. It is deliberately independent
of the data layer (cdk_leaderboard_lambda.data), which is what the benchmark measures.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from cdk_leaderboard_lambda.shared import schema

_ser = TypeSerializer()
_de = TypeDeserializer()


def _item(values: dict[str, Any]) -> dict:
    return {k: _ser.serialize(v) for k, v in values.items() if v is not None}


def _plain(item: dict) -> dict:
    return {k: _de.deserialize(v) for k, v in item.items()}


class OriginalDesign:
    def __init__(self, client, table: str, index: str = schema.RANK_INDEX) -> None:
        self.ddb = client
        self.table = table
        self.index = index

    # --- COUNT-based rank, total, percentile -------------------------------------------------

    def _count(self, board: str, before_key: str | None = None) -> int:
        condition = "#b = :b" + (" AND #k < :k" if before_key is not None else "")
        values = {":b": board, **({":k": before_key} if before_key is not None else {})}
        names = {
            "#b": schema.RANK_INDEX_PARTITION_KEY,
            **({"#k": schema.RANK_INDEX_SORT_KEY} if before_key is not None else {}),
        }
        args = dict(
            TableName=self.table,
            IndexName=self.index,
            KeyConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=_item(values),
            Select="COUNT",
        )
        total = 0
        while True:
            page = self.ddb.query(**args)
            total += page["Count"]
            if "LastEvaluatedKey" not in page:
                return total
            args["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def rank(self, board: str, rank_key: str) -> int:
        return 1 + self._count(board, rank_key)

    def total(self, board: str) -> int:
        return self._count(board)

    @staticmethod
    def percentile(rank: int, total: int) -> float:
        return round((total - rank) / total * 100, 1)

    # --- the benchmarked operations -------------------------------------------------------------

    def entry(self, board: str, player_id: str) -> dict | None:
        resp = self.ddb.get_item(
            TableName=self.table, Key=_item({schema.SCORES_PARTITION_KEY: player_id, schema.SCORES_SORT_KEY: board})
        )
        return _plain(resp["Item"]) if "Item" in resp else None

    def player_stats(self, board: str, player_id: str, window: int = 0) -> dict:
        """GET .../players/{id}?window=N: the entry, rank, total, percentile and N neighbours each side."""
        item = self.entry(board, player_id)
        if item is None:
            raise LookupError(f"{player_id} is not on {board}")
        key = item[schema.RANK_INDEX_SORT_KEY]
        rank, total = self.rank(board, key), self.total(board)
        above = list(reversed(self._page(board, window, before=key))) if window else []
        below = self._page(board, window, after=key) if window else []
        return {
            "player_id": player_id,
            "score": int(item["score"]),
            "rank": rank,
            "total_players": total,
            "percentile": self.percentile(rank, total),
            "above": [i["player_id"] for i in above],
            "below": [i["player_id"] for i in below],
        }

    def page(self, board: str, limit: int, after: str | None = None) -> list[dict]:
        """A page of the ranking after a rank key: one index query for limit + 1 (is there more?)."""
        return self._page(board, limit + 1, after=after)[:limit]

    def _page(self, board: str, limit: int, after: str | None = None, before: str | None = None) -> list[dict]:
        names = {"#b": schema.RANK_INDEX_PARTITION_KEY}
        values: dict[str, Any] = {":b": board}
        condition, forward = "#b = :b", True
        if after is not None or before is not None:
            names["#k"] = schema.RANK_INDEX_SORT_KEY
            values[":k"] = after if after is not None else before
            condition += " AND #k > :k" if after is not None else " AND #k < :k"
            forward = after is not None
        args = dict(
            TableName=self.table,
            IndexName=self.index,
            KeyConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=_item(values),
            ScanIndexForward=forward,
            Limit=limit,
        )
        items: list[dict] = []
        while len(items) < limit:
            resp = self.ddb.query(**args)
            items += [_plain(i) for i in resp.get("Items", [])]
            if "LastEvaluatedKey" not in resp:
                break
            args["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
            args["Limit"] = limit - len(items)
        return items

    def submit(self, item: dict[str, Any], descending: bool = True) -> dict:
        """Keep-best in one conditional UpdateItem, then the rank of what is stored, by COUNT.

        `item` is the full entry item (the store's own shape, from service.make_entry(...).item()).
        """
        board = item[schema.SCORES_SORT_KEY]
        key = {schema.SCORES_PARTITION_KEY: item[schema.SCORES_PARTITION_KEY], schema.SCORES_SORT_KEY: board}
        attributes = {k: v for k, v in item.items() if k not in key and v is not None}
        worse = "#score < :score" if descending else "#score > :score"
        names = {f"#{k}": k for k in attributes}
        try:
            self.ddb.update_item(
                TableName=self.table,
                Key=_item(key),
                UpdateExpression="SET " + ", ".join(f"#{k} = :{k}" for k in attributes),
                ConditionExpression=f"attribute_not_exists(#score) OR {worse}",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=_item({f":{k}": v for k, v in attributes.items()}),
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
            stored_key, stored_score, changed = item[schema.RANK_INDEX_SORT_KEY], int(item["score"]), True
        except self.ddb.exceptions.ConditionalCheckFailedException as err:
            old = _plain(err.response.get("Item") or {})
            stored_key, stored_score, changed = old[schema.RANK_INDEX_SORT_KEY], int(old["score"]), False
        return {"score": stored_score, "changed": changed, "rank": self.rank(board, stored_key)}

    # --- the oracle: the whole ranking, in order ------------------------------------------------

    def ranking(self, board: str) -> Iterator[tuple[str, str, int]]:
        """(rank_key, player_id, score) of every entry, best first: the brute-force truth."""
        args = dict(
            TableName=self.table,
            IndexName=self.index,
            KeyConditionExpression="#b = :b",
            ExpressionAttributeNames={
                "#b": schema.RANK_INDEX_PARTITION_KEY,
                "#k": schema.RANK_INDEX_SORT_KEY,
                "#p": schema.SCORES_PARTITION_KEY,
                "#s": "score",
            },
            ExpressionAttributeValues=_item({":b": board}),
            ProjectionExpression="#k, #p, #s",
        )
        while True:
            resp = self.ddb.query(**args)
            for i in resp.get("Items", []):
                yield (i[schema.RANK_INDEX_SORT_KEY]["S"], i[schema.SCORES_PARTITION_KEY]["S"], int(i["score"]["N"]))
            if "LastEvaluatedKey" not in resp:
                return
            args["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
