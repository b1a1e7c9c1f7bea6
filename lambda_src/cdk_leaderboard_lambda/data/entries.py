"""Entries: a player's score on one index partition, and the rank index (GSI) over them, as items of the scores
table (ports.EntryStore on DynamoDB; data/memory_entries.py holds the in-memory one, tests/contract both)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..domain.entry_store import Changed, Erasing, erasure_stands, is_fence, is_hidden, position
from ..domain.ports import KeptBest, Purged, SubmissionRead
from ..shared import item_keys, schema
from ..shared.attribute_values import from_item, to_item
from ..shared.errors import TransactionBusy
from ..shared.model import Entry, EntryWrite, rank_key_attribute
from . import dynamo, moderation
from .unit_of_work import DynamoAction, DynamoUnitOfWork, DynamoWrites

if TYPE_CHECKING:
    from ..domain.digest_key import DigestKey
    from ..shared.clock import Clock

# How many operation ids of idempotent requests an entry remembers (the newest ones).
OPERATIONS_KEPT = 16
KEEP_BEST_ATTEMPTS = 4  # a player hidden and shown again while they submit: each round follows the item's state
BULK_WRITERS = 8  # batches in flight at once for put_new: 1000 simulated players in ~3 s locally, not ~8 s


def fence(player_id: str, partition: str, until: int) -> dict[str, Any]:
    return {schema.SCORES_PARTITION_KEY: player_id, schema.SCORES_SORT_KEY: partition, schema.ERASING_MARK: until}


def beats(new: int, old: int, descending: bool) -> bool:
    return new > old if descending else new < old


def stored_after_keep_best(entry: Entry, old: dict[str, Any], name_given: bool, hidden: bool) -> dict[str, Any]:
    """The item as a successful keep_best leaves it (its UpdateItem's SET over the old item)."""
    stored = {
        schema.SCORES_PARTITION_KEY: entry.player_id,
        schema.SCORES_SORT_KEY: entry.leaderboard_id,
        **old,
        **{k: v for k, v in entry.attributes(hidden).items() if v is not None},
    }
    if not name_given and old.get("player_name"):
        stored["player_name"] = old["player_name"]
    return stored


def keep_best_loop(once: Any, entry: Entry, descending: bool, name_given: bool, hidden: bool) -> KeptBest:
    """keep_best's rounds over one conditional write `once(entry, descending, name_given, hidden)` -> (changed,
    the item before it): shared by both implementations, so they follow the same rules."""
    for _ in range(KEEP_BEST_ATTEMPTS):
        changed, old = once(entry, descending, name_given, hidden)
        if changed:
            break
        if is_fence(old):
            raise Erasing(entry.player_id)
        if is_hidden(old) == hidden or (old and not beats(entry.score, old["score"], descending)):
            # refused on the score alone: a better one is stored
            return KeptBest(changed=False, item=old, created=False)
        hidden = is_hidden(old)  # hidden, shown or removed meanwhile: write it the way it now is
    else:
        raise Changed()
    return KeptBest(changed=True, item=stored_after_keep_best(entry, old, name_given, hidden), created=not old)


class DynamoEntries:
    """The entries as items of the scores table, ranked by its rank index."""

    def __init__(self, client: Any, table: str, rank_index: str, clock: Clock, digest_key: DigestKey) -> None:
        self._client, self._table, self._rank_index = client, table, rank_index
        self._on = (client, table)
        # The runtime's: whether an erasure stands is a question of time, and its item is named by the digest key.
        self._clock, self._digest_key = clock, digest_key

    def _get_all(self, pairs: Iterable[tuple[str, str]], consistent: bool = True) -> dict[tuple[str, str], dict]:
        wanted = list(dict.fromkeys(pairs))
        items = dynamo.batch_get([dynamo.key(p, part) for p, part in wanted], consistent=consistent, on=self._on)
        return {(i[schema.SCORES_PARTITION_KEY], i[schema.SCORES_SORT_KEY]): i for i in items}

    def get(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        """Strongly consistent entries by (player_id, index partition); absent ones (and fences) are left out."""
        return {k: i for k, i in self._get_all(pairs).items() if not is_fence(i)}

    def get_for_submission(
        self, pairs: Iterable[tuple[str, str]], board_id: str, *, stored_board: bool, consistent: bool = True
    ) -> SubmissionRead:
        """get(), plus which of their players are hidden on the board (their moderation items) and, for a board
        stored in the table, its item (None: gone), read in the same request; eventually consistent if asked (half
        the read units: for a writer whose writes' conditions guard what the read may miss). Fences are returned in
        their entry's place: the writer must refuse (is_fence), as its write's condition would.

        The same request reads each player's erasure item (keyed by a hash of the id, see data.erasures): while it
        stands, every entry place of that player reads as a fence. It outlives the entry places' own fences, which
        an erasure lifts before it answers "erased" (then no item holds the id), so a submission that reads after
        the erasure began is refused however late it writes. An eventually consistent read may miss an erasure
        item put within its replication lag; the entry places' fences, up FENCE_SECONDS (the submit timeout + 5 s)
        from that put, refuse such a submission's writes."""
        pairs = list(pairs)
        players = list(dict.fromkeys(p for p, _ in pairs))
        hidden = {moderation.item_key(board_id, p): p for p in players}
        board = [item_keys.board_key(board_id)] if stored_board else []
        erasing = {p: item_keys.erasing_key(self._digest_key.value(), p) for p in players}
        items = self._get_all(pairs + list(hidden) + board + list(erasing.values()), consistent)
        now_s = int(self._clock.now().timestamp())
        for player, key in erasing.items():
            found = items.pop(key, None)
            if found is not None and erasure_stands(found, now_s):
                items.update({(p, part): fence(p, part, 0) for p, part in pairs if p == player})
        hidden_players = {p for k, p in hidden.items() if items.pop(k, None) is not None}
        board_item = items.pop(board[0], None) if board else None
        return SubmissionRead(items, hidden_players, board_item)

    def write(self, writes: list[EntryWrite]) -> None:
        """Each entry only if it is still as read: one UpdateItem for one entry, else one transaction (the entries'
        own unit of work). Raises Changed when another writer got there first, or another transaction was in
        progress on one of the items: nothing is written then, and the caller reads again."""
        try:
            DynamoUnitOfWork(self._client).commit(self.write_ops(writes))
        except (TransactionBusy, dynamo.Cancelled) as err:
            raise Changed() from err

    def write_ops(self, writes: list[EntryWrite]) -> DynamoWrites:
        """The writes for a unit of work: one conditional Update each, refused (Changed) unless still as read."""
        updates = tuple(DynamoAction({"Update": self._update(w)}, Changed) for w in writes)
        return DynamoWrites(updates, "its player's entries")

    def _update(self, w: EntryWrite) -> dict:
        names: dict[str, str] = {}
        attributes = {k: v for k, v in w.entry.attributes(w.hidden).items() if v is not None}
        values: dict[str, Any] = {f":{k}": v for k, v in attributes.items()}
        sets = [f"{k} = :{k}" for k in attributes]
        removes: list[str] = [rank_key_attribute(not w.hidden)]
        if w.expected is None:  # no entry, and no erasure's fence in its place
            condition = f"attribute_not_exists(score) AND attribute_not_exists({schema.ERASING_MARK})"
        else:  # rank keys are unique per write: as read, listed or hidden
            condition = f"{schema.RANK_INDEX_SORT_KEY} = :expected OR {schema.HIDDEN_RANK_KEY} = :expected"
            values[":expected"] = position(w.expected)
        if w.operation:
            held = dict((w.expected or {}).get("ops") or {})
            if w.expected is None or "ops" not in w.expected:
                sets.append("ops = :ops")
                values[":ops"] = {w.operation: w.operation_expires}
            else:
                names["#op"] = w.operation
                sets.append("ops.#op = :op_expires")
                values[":op_expires"] = w.operation_expires
                for i, old in enumerate(forgotten_operations(held)):  # the oldest ones, so the item stays small
                    names[f"#old{i}"] = old
                    removes.append(f"ops.#old{i}")
        update = {
            "TableName": self._table,
            "Key": dynamo.key(w.entry.player_id, w.entry.leaderboard_id),
            "UpdateExpression": "SET " + ", ".join(sets) + " REMOVE " + ", ".join(removes),
            "ConditionExpression": condition,
            "ExpressionAttributeValues": to_item(values),
        }
        if names:
            update["ExpressionAttributeNames"] = names
        return update

    def keep_best(self, entry: Entry, *, descending: bool, name_given: bool, hidden: bool = False) -> KeptBest:
        """Store the entry only if it beats the stored one (or there is none): ONE conditional UpdateItem, no read.

        Returns (changed, the item as it now stands, whether it was created). Concurrent calls cannot lower a
        stored score: each is atomic on its item, and an equal score does not replace the one reached first.
        Without a name given the stored one is kept (a newcomer shows their id). A hidden player's entry stays
        hidden: the write expects the entry in the state `hidden` says (as the caller read it; a new entry is
        created that way), and one more write, told by the refusal, follows an entry hidden or shown meanwhile."""
        return keep_best_loop(self._keep_best_once, entry, descending, name_given, hidden)

    def _keep_best_once(
        self, entry: Entry, descending: bool, name_given: bool, hidden: bool
    ) -> tuple[bool, dict[str, Any]]:
        """(changed, the item before this write: ALL_OLD whether it succeeded or not)."""
        attributes = {k: v for k, v in entry.attributes(hidden).items() if v is not None and k != "player_name"}
        sets = [f"{k} = :{k}" for k in attributes]
        sets.append(
            "player_name = :player_name" if name_given else "player_name = if_not_exists(player_name, :player_name)"
        )
        values = {f":{k}": v for k, v in attributes.items()} | {":player_name": entry.player_name}
        better = "score " + ("<" if descending else ">") + " :score"
        condition = (
            f"(attribute_not_exists(score) OR (attribute_exists({schema.HIDDEN_RANK_KEY}) AND {better}))"
            if hidden
            else f"(attribute_not_exists(score) OR {better}) AND attribute_not_exists({schema.HIDDEN_RANK_KEY})"
        ) + f" AND attribute_not_exists({schema.ERASING_MARK})"  # an erasure's fence refuses every write
        try:
            resp = self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(entry.player_id, entry.leaderboard_id),
                UpdateExpression="SET " + ", ".join(sets),
                ConditionExpression=condition,
                ExpressionAttributeValues=to_item(values),
                ReturnValues="ALL_OLD",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
            return True, from_item(resp.get("Attributes") or {})
        except self._client.exceptions.ConditionalCheckFailedException as err:
            return False, from_item(err.response.get("Item") or {})

    def set_hidden(self, player_id: str, partition: str, item: dict[str, Any], *, hidden: bool) -> None:
        """Move an entry's rank key out of the rank index (hidden) or back into it, in its place; only if the entry
        is still as read (else Changed: re-read). The stream then recounts the range, as for any other change."""
        source, target = rank_key_attribute(not hidden), rank_key_attribute(hidden)
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(player_id, partition),
                UpdateExpression=f"SET {target} = :k REMOVE {source}",
                ConditionExpression=f"{source} = :k",
                ExpressionAttributeValues=to_item({":k": position(item)}),
            )
        except self._client.exceptions.ConditionalCheckFailedException as err:
            raise Changed() from err

    def of_player(self, player_id: str) -> list[dict[str, Any]]:
        """Every entry of one player (a Query on the table's partition key; an erasure's fences left out)."""
        return [i for i in self._items_of(player_id) if not is_fence(i)]

    def _items_of(self, player_id: str) -> list[dict[str, Any]]:
        return dynamo.query_items(
            on=self._client,
            TableName=self._table,
            KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
            ExpressionAttributeValues=to_item({":p": player_id}),
        )

    def raise_fence(
        self, player_id: str, partitions: Iterable[str], until: int, extra: Mapping[str, dict[str, Any]] | None = None
    ) -> int:
        """Put an erasure's fence in the place of the player's entry on each partition (replacing the entry: its
        rank key leaves the index, and the stream recounts it). Every entry write's condition refuses a fence.
        `extra`: more attributes of the fence on some partitions (the player's commitment there, for the log's
        erase record)."""
        extra = extra or {}
        return dynamo.batch_write(
            ({"PutRequest": {"Item": to_item({**extra.get(part, {}), **fence(player_id, part, until)})}}
             for part in dict.fromkeys(partitions)),  # until: epoch s it may go
            on=self._on,
        )  # fmt: skip

    def lift_fence(self, player_id: str) -> int:
        """Delete every item of the player's partition: their fences (nothing else can be there while they stand:
        every entry write refuses a fence, and every read-then-write finds the erasure's item)."""
        return self.delete(self.keys_in_partition(player_id))

    def partitions_of(self, player_id: str) -> list[str]:
        """The index partitions of every item in the player's partition (entries and fences)."""
        return [i[schema.SCORES_SORT_KEY] for i in self._items_of(player_id)]

    def of_player_on(self, player_id: str, board_id: str) -> list[dict[str, Any]]:
        """Every entry of one player on one board (every period and shard): of_player, kept to the board."""
        return [
            e for e in self.of_player(player_id) if item_keys.board_and_period(e[schema.SCORES_SORT_KEY])[0] == board_id
        ]

    def keys_of_player_on(self, player_id: str, board_id: str) -> list[tuple[str, str]]:
        """The table keys of of_player_on's entries (what delete takes)."""
        return [(player_id, e[schema.SCORES_SORT_KEY]) for e in self.of_player_on(player_id, board_id)]

    def one(self, player_id: str, partition: str) -> dict[str, Any] | None:
        resp = self._client.get_item(TableName=self._table, Key=dynamo.key(player_id, partition))
        item = from_item(resp["Item"]) if "Item" in resp else None
        return None if is_fence(item) else item

    def put_new(self, entries: Iterable[Entry]) -> int:
        """Bulk loads of fresh players (the simulator, benchmarks): plain batched puts; counters follow from the
        stream."""
        puts = ({"PutRequest": {"Item": to_item(new_item(e))}} for e in entries)
        return dynamo.batch_write(puts, writers=BULK_WRITERS, on=self._on)

    # --- the rank index ---

    def _index_args(self, partition: str, condition: str = "", values: dict | None = None) -> dict[str, Any]:
        return {
            "TableName": self._table,
            "IndexName": self._rank_index,
            "KeyConditionExpression": f"{schema.RANK_INDEX_PARTITION_KEY} = :b"
            + (f" AND {condition}" if condition else ""),
            "ExpressionAttributeValues": to_item({":b": partition, **(values or {})}),
        }

    def page(
        self,
        partition: str,
        limit: int,
        after: str | None = None,
        before: str | None = None,
        between: tuple[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Up to `limit` entries of an index partition in rank order (after a rank key and/or within a key range),
        or the nearest `limit` before a rank key (closest first). ONE Query: index entries are small (at most a few
        KB with metadata), so `limit` of them never reach DynamoDB's 1 MB page."""
        k = schema.RANK_INDEX_SORT_KEY
        if between is not None:
            low = max(between[0], after + "\x00") if after is not None else between[0]  # keys > after
            args = self._index_args(partition, f"{k} BETWEEN :lo AND :hi", {":lo": low, ":hi": between[1]})
        elif after is not None:
            args = self._index_args(partition, f"{k} > :k", {":k": after})
        elif before is not None:
            args = {**self._index_args(partition, f"{k} < :k", {":k": before}), "ScanIndexForward": False}
        else:
            args = self._index_args(partition)
        resp = self._client.query(Limit=limit, **args)
        return [from_item(i) for i in resp.get("Items", [])]

    def count_range(self, partition: str, lo: str, hi_inclusive: str, at_most: int | None = None) -> int:
        """COUNT of index entries with lo <= rank_key <= hi_inclusive (at most `at_most` counted, if given)."""
        if lo > hi_inclusive:
            return 0  # DynamoDB refuses BETWEEN with lo > hi
        k = schema.RANK_INDEX_SORT_KEY
        args = self._index_args(partition, f"{k} BETWEEN :lo AND :hi", {":lo": lo, ":hi": hi_inclusive})
        counted = 0
        limit = {"Limit": at_most} if at_most else {}
        for p in dynamo.query_pages(on=self._client, Select="COUNT", **args, **limit):
            counted += p["Count"]
            if at_most is not None and counted >= at_most:
                break
        return counted

    def index_keys(self, partition: str, lo: str, hi_inclusive: str, at_most: int | None = None) -> list[str]:
        """The rank keys of an index partition in [lo, hi_inclusive], in order (what a counter recount reads); at
        most `at_most` of them, if given (then one Query: keys are ~60 bytes, so thousands fit DynamoDB's 1 MB
        page)."""
        k = schema.RANK_INDEX_SORT_KEY
        args = self._index_args(partition, f"{k} BETWEEN :lo AND :hi", {":lo": lo, ":hi": hi_inclusive})
        found: list[str] = []
        limit = {"Limit": at_most} if at_most else {}
        for p in dynamo.query_pages(on=self._client, ProjectionExpression=k, **args, **limit):
            found += [i[k]["S"] for i in p.get("Items", [])]
            if at_most is not None and len(found) >= at_most:
                return found[:at_most]
        return found

    def delete_partition(self, partition: str, budget: int) -> Purged:
        """Delete up to `budget` entries of one index partition."""
        deleted = 0
        while deleted < budget:
            resp = self._client.query(Limit=min(100, budget - deleted), **self._index_args(partition))
            found = [dynamo.key(i[schema.SCORES_PARTITION_KEY]["S"], partition) for i in resp.get("Items", [])]
            if not found:
                return Purged(deleted, done=True)
            deleted += dynamo.batch_write(({"DeleteRequest": {"Key": k}} for k in found), on=self._on)
        return Purged(deleted, done=False)

    def delete(self, pairs: Iterable[tuple[str, str]]) -> int:
        """Delete items of the scores table by (partition key, sort key); the stream recounts what they held."""
        return dynamo.delete_keys(pairs, on=self._on)

    def keys_in_partition(self, partition_key: str) -> list[tuple[str, str]]:
        """The keys of every item under one partition key of the scores table (a player's entries, their
        counters)."""
        return dynamo.keys_in_partition(partition_key, on=self._on)

    def page_of_player(self, player_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` items of one player's partition in sort-key order, after sort key `after` (None: from the
        first); and whether more may follow. One Query."""
        args: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": f"{schema.SCORES_PARTITION_KEY} = :p",
            "ExpressionAttributeValues": to_item({":p": player_id}),
            "Limit": limit,
        }
        if after is not None:
            args["ExclusiveStartKey"] = dynamo.key(player_id, after)
        resp = self._client.query(**args)
        return [from_item(i) for i in resp.get("Items", [])], "LastEvaluatedKey" in resp


def new_item(e: Entry) -> dict[str, Any]:
    """A fresh player's entry item, as put_new stores it."""
    return {schema.SCORES_PARTITION_KEY: e.player_id, schema.SCORES_SORT_KEY: e.leaderboard_id, **e.attributes()}


def forgotten_operations(held: Mapping[str, int]) -> list[str]:
    """The oldest operation ids an entry forgets when one more is written, so it keeps OPERATIONS_KEPT."""
    return sorted(held, key=held.__getitem__)[: max(0, len(held) + 1 - OPERATIONS_KEPT)]
