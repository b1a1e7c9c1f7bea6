"""Runs (runs.py): one item per run in the scores table, under item_keys.run_key (a keyed hash of the player's id, then
the run id), removed by TTL a day after it ends, or with the player's other items by an erasure.

A run is used by ONE conditional UpdateItem that sets used_ms only where it is not set yet and the run is on this
board and not over: two submissions racing with one run token cannot both pass it.

A player holds at most `most_open` open runs (unused, not over) per board: start() takes one of that many places,
items of the player's runs partition under item_keys.open_run_key naming the run in it; a place is free when its run is
used, over or gone; when none is, the place of the oldest open run is taken and that run is ended (ends_at set to
now), in one transaction with the new run, conditional on the place still naming what was read (a racing start
cancels it, and start reads again). A used run whose place is taken is ended too, so a release cannot reopen it.

Two implementations of ports.RunStore, held to the same behaviour by tests/contract: the DynamoDB one (what every
function uses) and an in-memory one (for domain tests that need no engine)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..domain.ports import Taken
from ..shared import item_keys, schema
from ..shared.attribute_values import from_item, to_item
from ..shared.errors import TransactionBusy
from . import dynamo, memory

if TYPE_CHECKING:
    from ..domain.digest_key import DigestKey

KEEP_SECONDS = 24 * 3600  # a run's item outlives the run by this (TTL deletes within days, not at once)
START_ATTEMPTS = 4  # reads of the places before a start gives up on racing starts (503, nothing written)
_PARTITION, _SORT = schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY


def _new(
    board_id: str, seed: int, started_ms: int, ends_at: int, baseline: dict[str, Any] | None = None
) -> dict[str, Any]:
    run = {
        "board_id": board_id,
        "seed": seed,
        "started_ms": started_ms,
        "ends_at": ends_at,
        schema.TTL_ATTRIBUTE: ends_at + KEEP_SECONDS,
    }
    if baseline is not None:
        run["baseline"] = baseline
    return run


def _is_open(run: dict[str, Any] | None, now_s: int) -> bool:
    return run is not None and "used_ms" not in run and run["ends_at"] > now_s


def _choose(
    most_open: int, places: dict[int, str], runs: dict[str, dict[str, Any]], now_s: int
) -> tuple[int, str | None, str | None]:
    """(the place to take, the run id it names now or None, the run to end or None): the first place without an
    open run, else the oldest open run's place. Its run is ended unless it is over already (or gone)."""
    free = [n for n in range(most_open) if not _is_open(runs.get(places.get(n, "")), now_s)]
    place = free[0] if free else min(range(most_open), key=lambda n: runs[places[n]]["started_ms"])
    named = places.get(place)
    run = runs.get(named or "")
    return place, named, named if run is not None and run["ends_at"] > now_s else None


def _run(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in (_PARTITION, _SORT)}


class DynamoRuns:
    """The runs as items of the scores table."""

    def __init__(self, client: Any, table: str, digest_key: DigestKey) -> None:
        self._client, self._table = client, table
        self._digest_key = digest_key  # the runtime's: it names the player's items

    def start(
        self,
        run_id: str,
        player_id: str,
        board_id: str,
        seed: int,
        started_ms: int,
        ends_at: int,
        *,
        now_s: int,
        most_open: int,
        baseline: dict[str, Any] | None = None,
    ) -> str | None:
        """Store a new run in one of the player's `most_open` places on the board (see the module's docstring):
        the id of the run it ended, or None. One Query and one BatchGetItem, then one TransactWriteItems (2 or 3
        writes); TransactionBusy after START_ATTEMPTS racing starts (nothing written)."""
        partition = item_keys.runs_partition(self._digest_key.value(), player_id)
        prefix = item_keys.open_runs_prefix(board_id)
        for _ in range(START_ATTEMPTS):
            found = dynamo.query_items(
                on=self._client,
                TableName=self._table,
                KeyConditionExpression=f"{_PARTITION} = :p AND begins_with({_SORT}, :s)",
                ExpressionAttributeValues=to_item({":p": partition, ":s": prefix}),
                ConsistentRead=True,
            )
            places = {int(i[_SORT][len(prefix) :]): str(i["run_id"]) for i in found}
            named = [
                dynamo.key(*item_keys.run_key(self._digest_key.value(), player_id, r))
                for r in sorted(set(places.values()))
            ]
            runs = (
                {str(i[_SORT]): _run(i) for i in dynamo.batch_get(named, on=(self._client, self._table))}
                if named
                else {}
            )
            place, seen, ended = _choose(most_open, places, runs, now_s)
            place_key = item_keys.open_run_key(self._digest_key.value(), player_id, board_id, place)
            if seen is None:
                condition, values = f"attribute_not_exists({_PARTITION})", None
            else:
                condition, values = "run_id = :seen", to_item({":seen": seen})
            take: dict[str, Any] = {
                "TableName": self._table,
                "Item": to_item({_PARTITION: place_key[0], _SORT: place_key[1], "run_id": run_id}),
                "ConditionExpression": condition,
            }
            if values:
                take["ExpressionAttributeValues"] = values
            item = {_PARTITION: partition, _SORT: run_id, **_new(board_id, seed, started_ms, ends_at, baseline)}
            actions: list[dict[str, Any]] = [
                {"Put": take},
                {
                    "Put": {
                        "TableName": self._table,
                        "Item": to_item(item),
                        "ConditionExpression": f"attribute_not_exists({_PARTITION})",
                    }
                },
            ]
            if ended is not None:
                actions.append(
                    {
                        "Update": {
                            "TableName": self._table,
                            "Key": dynamo.key(*item_keys.run_key(self._digest_key.value(), player_id, ended)),
                            "UpdateExpression": "SET ends_at = :now",
                            "ConditionExpression": "ends_at > :now",
                            "ExpressionAttributeValues": to_item({":now": now_s}),
                        }
                    }
                )
            try:
                dynamo.transact(actions, on=self._client)
                return ended
            except dynamo.Cancelled as cancelled:
                if cancelled.reasons[1] == "ConditionalCheckFailed":  # this run id is stored already
                    raise Taken("a run of this id is stored already") from cancelled
                continue  # another start (or a use) changed what was read: read again
        raise TransactionBusy("other runs of this player are starting at the same time; nothing started, retry")

    def use(self, run_id: str, player_id: str, board_id: str, now_s: int, used_ms: int) -> dict[str, Any] | None:
        """Mark the run used at `used_ms` if it exists, is on this board, unused and not over (now_s < ends_at):
        the run as it is now, or None (nothing changed). One conditional UpdateItem."""
        try:
            resp = self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(*item_keys.run_key(self._digest_key.value(), player_id, run_id)),
                UpdateExpression="SET used_ms = :used",
                ConditionExpression="attribute_exists(started_ms) AND attribute_not_exists(used_ms) "
                "AND board_id = :board AND ends_at > :now",
                ExpressionAttributeValues=to_item({":used": used_ms, ":board": board_id, ":now": now_s}),
                ReturnValues="ALL_NEW",
            )
            return _run(from_item(resp["Attributes"]))
        except self._client.exceptions.ConditionalCheckFailedException:
            return None

    def release(self, run_id: str, player_id: str, used_ms: int) -> None:
        """Undo use() of a submission that was then refused: only this use (used_ms), not a later one."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(*item_keys.run_key(self._digest_key.value(), player_id, run_id)),
                UpdateExpression="REMOVE used_ms",
                ConditionExpression="used_ms = :used",
                ExpressionAttributeValues=to_item({":used": used_ms}),
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            pass

    def get(self, player_id: str, run_id: str) -> dict[str, Any] | None:
        key = dynamo.key(*item_keys.run_key(self._digest_key.value(), player_id, run_id))
        resp = self._client.get_item(TableName=self._table, Key=key, ConsistentRead=True)
        return _run(from_item(resp["Item"])) if "Item" in resp else None

    def forget_player(self, player_id: str) -> None:
        """Delete every run of the player (an erasure): one Query of the keys, then BatchWriteItem, 25 a request."""
        on = (self._client, self._table)
        dynamo.delete_keys(
            dynamo.keys_in_partition(item_keys.runs_partition(self._digest_key.value(), player_id), on=on),
            on=on,
        )


class MemoryRuns:
    """The same runs in a dict of this instance, by (player id, run id)."""

    def __init__(self) -> None:
        self._runs: dict[memory.Key, dict[str, Any]] = {}
        self._places: dict[tuple[str, str, int], str] = {}  # (player, board, place) -> run id
        self._lock = threading.Lock()

    def start(
        self,
        run_id: str,
        player_id: str,
        board_id: str,
        seed: int,
        started_ms: int,
        ends_at: int,
        *,
        now_s: int,
        most_open: int,
        baseline: dict[str, Any] | None = None,
    ) -> str | None:
        with self._lock:
            if (player_id, run_id) in self._runs:
                raise Taken("a run of this id is stored already")
            places = {n: r for (p, b, n), r in self._places.items() if (p, b) == (player_id, board_id)}
            runs = {r: self._runs[(player_id, r)] for r in places.values() if (player_id, r) in self._runs}
            place, _, ended = _choose(most_open, places, runs, now_s)
            self._places[(player_id, board_id, place)] = run_id
            self._runs[(player_id, run_id)] = memory.stored(_new(board_id, seed, started_ms, ends_at, baseline))
            if ended is not None:
                self._runs[(player_id, ended)]["ends_at"] = now_s
            return ended

    def use(self, run_id: str, player_id: str, board_id: str, now_s: int, used_ms: int) -> dict[str, Any] | None:
        with self._lock:
            run = self._runs.get((player_id, run_id))
            if run is None or "used_ms" in run or run["board_id"] != board_id or not run["ends_at"] > now_s:
                return None
            run["used_ms"] = used_ms
            return dict(run)

    def release(self, run_id: str, player_id: str, used_ms: int) -> None:
        with self._lock:
            run = self._runs.get((player_id, run_id))
            if run is not None and run.get("used_ms") == used_ms:
                del run["used_ms"]

    def get(self, player_id: str, run_id: str) -> dict[str, Any] | None:
        with self._lock:
            run = self._runs.get((player_id, run_id))
            return dict(run) if run is not None else None

    def forget_player(self, player_id: str) -> None:
        with self._lock:
            for key in [k for k in self._runs if k[0] == player_id]:
                del self._runs[key]
            for place in [k for k in self._places if k[0] == player_id]:
                del self._places[place]
