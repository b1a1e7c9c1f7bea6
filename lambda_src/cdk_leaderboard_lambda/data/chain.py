"""The hash-chained log of each board period, and the players' commitment keys (ports.ChainStore).

Items of the scores table (none has a rank key, so the stream consumers' filters leave them out):

    record  ("#log#" + board period,  seq as 12 digits)  one record: its canonical JSON text (hashchain.py)
    head    ("#log#" + board period,  "head")            the last record's seq and hash: what an append expects
    source  ("#logsrc#" + stream event id, "source")     a stream record already appended (kept a day: TTL)
    key     (item_keys.log_key_partition,  "key")             the player's 32-byte commitment key, hex; erasure replaces
                                                         it by an item with no key for ERASED_KEY_SECONDS (TTL)

An append is ONE transaction: the head, moved from the seq the appender read to the last new record's (the
condition that makes concurrent appenders take turns), every new record (only where none is), and the source
items of the stream records it logs (only where none is: a retried batch finds them and appends nothing twice).

Two implementations, held to the same behaviour by tests/contract: the DynamoDB one (what every function uses)
and an in-memory one (for domain tests that need no engine)."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..domain.hashchain import MAX_APPEND
from ..domain.ports import Head
from ..shared import item_keys, schema
from ..shared.attribute_values import from_item, to_item
from . import dynamo

if TYPE_CHECKING:
    from ..domain.digest_key import DigestKey

_PARTITION, _SORT = schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY
_LOG_PREFIX, _SOURCE_PREFIX = "#log#", "#logsrc#"
HEAD_SORT = "head"
_SEQ_DIGITS = 12
_LAST_SEQ = "9" * _SEQ_DIGITS
KEY_BYTES = 32
SOURCE_SECONDS = 24 * 3600  # longer than a stream record is retried (the mapping's max_record_age: 1 h)
# How long an erased player's forgotten key stays forgotten: a change of theirs still on its way through the stream
# (the mapping gives up on a record after 1 h) must not make them a new key that would outlive the erasure.
ERASED_KEY_SECONDS = 2 * 3600


def log_partition(board_id: str, period_id: str) -> str:
    return _LOG_PREFIX + item_keys.leaderboard_id(board_id, period_id)


def _seq_key(seq: int) -> str:
    return f"{seq:0{_SEQ_DIGITS}d}"


def _source_key(source: str) -> tuple[str, str]:
    return _SOURCE_PREFIX + source, "source"


def _key_key(secret: bytes, player_id: str) -> tuple[str, str]:
    return item_keys.log_key_partition(secret, player_id), "key"


def _check(after: Head | None, records: list[dict[str, Any]], sources: list[str]) -> None:
    first = (after[0] if after else 0) + 1
    if [r["seq"] for r in records] != list(range(first, first + len(records))):
        raise ValueError(f"records must follow the head: seq {first} on, without gaps")
    if not records or len(records) > MAX_APPEND or len(set(sources)) != len(sources):
        raise ValueError(f"1 to {MAX_APPEND} records a transaction, and distinct sources")


def _text(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class DynamoChain:
    """The log, its heads, the appended sources and the players' keys as items of the scores table."""

    def __init__(self, client: Any, table: str, digest_key: DigestKey) -> None:
        self._client, self._table = client, table
        self._digest_key = digest_key  # the runtime's: it names the players' commitment keys

    def _secret(self) -> bytes:
        return self._digest_key.value()

    def log_head(self, board_id: str, period_id: str) -> Head | None:
        """The last record's (seq, hash); None before the first. One strongly consistent GetItem (~150 bytes)."""
        resp = self._client.get_item(
            TableName=self._table, Key=dynamo.key(log_partition(board_id, period_id), HEAD_SORT), ConsistentRead=True
        )
        if "Item" not in resp:
            return None
        item = from_item(resp["Item"])
        return int(item["seq"]), str(item["hash"])

    def append(
        self,
        board_id: str,
        period_id: str,
        after: Head | None,
        records: list[dict[str, Any]],
        sources: list[str],
        now_s: int,
    ) -> bool:
        """Append records (seq after.seq + 1 on) if the head is still `after`, and mark `sources` appended, in one
        transaction. False, and nothing written, if another append moved the head first, or one of the sources
        was appended already (read the head and the sources again)."""
        _check(after, records, sources)
        partition = log_partition(board_id, period_id)
        last = records[-1]
        head = {_PARTITION: partition, _SORT: HEAD_SORT, "seq": last["seq"], "hash": last["hash"]}
        head_put: dict[str, Any] = {"TableName": self._table, "Item": to_item(head)}
        if after is None:
            head_put["ConditionExpression"] = f"attribute_not_exists({_SORT})"
        else:
            head_put["ConditionExpression"] = "seq = :seq"
            head_put["ExpressionAttributeValues"] = to_item({":seq": after[0]})
        new = f"attribute_not_exists({_SORT})"
        actions = [{"Put": head_put}]
        for record in records:
            item = {_PARTITION: partition, _SORT: _seq_key(record["seq"]), "record": _text(record)}
            actions.append({"Put": {"TableName": self._table, "Item": to_item(item), "ConditionExpression": new}})
        for source in sources:
            part, sort = _source_key(source)
            marker: dict[str, Any] = {_PARTITION: part, _SORT: sort, schema.TTL_ATTRIBUTE: now_s + SOURCE_SECONDS}
            actions.append({"Put": {"TableName": self._table, "Item": to_item(marker), "ConditionExpression": new}})
        try:
            self._client.transact_write_items(TransactItems=actions)
        except self._client.exceptions.TransactionCanceledException:
            return False  # a condition failed, or another transaction held the head (TransactionConflict)
        return True

    def appended(self, sources: Iterable[str]) -> set[str]:
        """Which of these stream records are in a log already: strongly consistent BatchGetItem, 100 a request."""
        wanted = list(dict.fromkeys(sources))
        on = (self._client, self._table)
        found = dynamo.batch_get([dynamo.key(*_source_key(s)) for s in wanted], on=on) if wanted else []
        return {item[_PARTITION][len(_SOURCE_PREFIX) :] for item in found}

    def page(self, board_id: str, period_id: str, after_seq: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` records after seq `after_seq` in seq order, and whether more follow: ONE Query of
        limit + 1 items (each ~300 bytes: 101 of them are 8 strongly consistent read units)."""
        found = self._client.query(
            TableName=self._table,
            KeyConditionExpression=f"{_PARTITION} = :p AND {_SORT} BETWEEN :lo AND :hi",
            ExpressionAttributeValues=to_item(
                {":p": log_partition(board_id, period_id), ":lo": _seq_key(after_seq + 1), ":hi": _LAST_SEQ}
            ),
            Limit=limit + 1,
            ConsistentRead=True,
        )
        records = [json.loads(from_item(i)["record"]) for i in found.get("Items", [])]
        return records[:limit], len(records) > limit

    def player_keys(self, player_ids: Iterable[str], now_s: int, *, create: bool = True) -> dict[str, bytes]:
        """Each player's commitment key, made (32 random bytes) for those who have none if `create`: a BatchGetItem
        per 100, and one conditional PutItem per new player (a concurrent maker's key wins: read back). A player
        whose key erasure forgot less than ERASED_KEY_SECONDS ago gets none, and none is made."""
        wanted = {_key_key(self._secret(), p): p for p in dict.fromkeys(player_ids)}
        on = (self._client, self._table)
        found = dynamo.batch_get([dynamo.key(*k) for k in wanted], on=on) if wanted else []
        items = {wanted[(i[_PARTITION], i[_SORT])]: i for i in found}
        held = {p: bytes.fromhex(i["key"]) for p, i in items.items() if "key" in i}
        for (part, sort), player_id in wanted.items():
            if player_id in held or not create or _forgotten(items.get(player_id), now_s):
                continue
            key = secrets.token_bytes(KEY_BYTES)
            try:
                self._client.put_item(
                    TableName=self._table,
                    Item=to_item({_PARTITION: part, _SORT: sort, "key": key.hex()}),
                    ConditionExpression=f"attribute_not_exists({_SORT}) OR (attribute_not_exists(#k) AND #t < :now)",
                    ExpressionAttributeNames={"#k": "key", "#t": schema.TTL_ATTRIBUTE},
                    ExpressionAttributeValues=to_item({":now": now_s}),
                )
                held[player_id] = key
            except self._client.exceptions.ConditionalCheckFailedException:
                resp = self._client.get_item(TableName=self._table, Key=dynamo.key(part, sort), ConsistentRead=True)
                again = from_item(resp.get("Item") or {})
                if "key" in again:
                    held[player_id] = bytes.fromhex(again["key"])
        return held

    def forget_player(self, player_id: str, now_s: int) -> None:
        """Delete the player's key (erasure): from then on no commitment can be linked back to them. What stays
        in its place for ERASED_KEY_SECONDS holds no key and no id (its partition is a keyed hash)."""
        part, sort = _key_key(self._secret(), player_id)
        item = {_PARTITION: part, _SORT: sort, schema.TTL_ATTRIBUTE: now_s + ERASED_KEY_SECONDS}
        self._client.put_item(TableName=self._table, Item=to_item(item))


def _forgotten(item: dict[str, Any] | None, now_s: int) -> bool:
    return item is not None and "key" not in item and int(item.get(schema.TTL_ATTRIBUTE, 0)) >= now_s


class MemoryChain:
    """The same in dicts of this instance."""

    def _secret(self) -> bytes:
        return self._key

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)  # in memory, the keys' hashes need only not name the player
        self._heads: dict[str, Head] = {}
        self._records: dict[str, dict[int, str]] = {}
        self._sources: set[str] = set()
        # by the item's key, a keyed hash of the player's id as on DynamoDB: an erased player's place names nobody
        self._keys: dict[tuple[str, str], tuple[bytes | None, int]] = {}  # -> (key, forgotten until)
        self._lock = threading.Lock()

    def log_head(self, board_id: str, period_id: str) -> Head | None:
        with self._lock:
            return self._heads.get(log_partition(board_id, period_id))

    def append(
        self,
        board_id: str,
        period_id: str,
        after: Head | None,
        records: list[dict[str, Any]],
        sources: list[str],
        now_s: int,
    ) -> bool:
        _check(after, records, sources)
        partition = log_partition(board_id, period_id)
        with self._lock:
            head = self._heads.get(partition)
            if (head[0] if head else None) != (after[0] if after else None) or self._sources & set(sources):
                return False
            held = self._records.setdefault(partition, {})
            if any(r["seq"] in held for r in records):
                return False
            held.update({r["seq"]: _text(r) for r in records})
            self._sources |= set(sources)
            self._heads[partition] = (records[-1]["seq"], records[-1]["hash"])
            return True

    def appended(self, sources: Iterable[str]) -> set[str]:
        with self._lock:
            return set(sources) & self._sources

    def page(self, board_id: str, period_id: str, after_seq: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        with self._lock:
            held = self._records.get(log_partition(board_id, period_id), {})
            found = [json.loads(held[seq]) for seq in sorted(held) if seq > after_seq]
        return found[:limit], len(found) > limit

    def player_keys(self, player_ids: Iterable[str], now_s: int, *, create: bool = True) -> dict[str, bytes]:
        with self._lock:
            held = {}
            for player_id in dict.fromkeys(player_ids):
                key, until = self._keys.get(_key_key(self._secret(), player_id), (None, 0))
                if key is None and create and until < now_s:
                    key = secrets.token_bytes(KEY_BYTES)
                    self._keys[_key_key(self._secret(), player_id)] = (key, 0)
                if key is not None:
                    held[player_id] = key
            return held

    def forget_player(self, player_id: str, now_s: int) -> None:
        with self._lock:
            self._keys[_key_key(self._secret(), player_id)] = (None, now_s + ERASED_KEY_SECONDS)
