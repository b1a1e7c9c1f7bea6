"""A closing summary checked whole: every field of it signed, every signed field one of the format's (below: the
summary's shape, in this one place), each number of the JSON type it was signed with, and its standings complete
against the log replayed to its `log_head`: `top` is the replay's first min(top_size, total) entries, each reward
names exactly the players of its ranks, `total_players` is the replay's. Each failure names the field."""

from __future__ import annotations

from typing import Any

from .report import Report
from .standings import ORDERS, Standings, replay

# The summary's fields (docs/PROVING.md): name -> (JSON types, required). A signed field not listed here has a
# meaning this verifier does not know, so it fails rather than pass unchecked; an unlisted `top` entry key too.
NULL = type(None)
SUMMARY_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "board_id": ((str,), True),
    "generation": ((str,), False),  # signed since board generations: which creation of the board id
    "period_id": ((str,), True),
    "leaderboard_id": ((str,), False),
    "kind": ((str,), False),
    "status": ((str,), False),
    "starts_at": ((str, NULL), False),
    "ends_at": ((str, NULL), False),
    "closed_at": ((str,), True),
    "order": ((str,), False),  # older summaries sign none: they take --order (or the board's today)
    "top_size": ((int,), False),  # older summaries sign none: they kept LEGACY_TOP_SIZE
    "total_players": ((int,), True),
    "top": ((list,), True),
    "tier_cutoffs": ((dict,), False),
    "rewards": ((list,), True),
    "log_head": ((dict,), True),
    "snapshot_id": ((str,), False),
}
ENTRY_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "rank": ((int,), True),
    "score": ((int, float), True),
    "player_id": ((str,), False),
    "player_name": ((str, NULL), False),
    "at": ((str,), False),
    "player": ((str,), False),
}
REWARD_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "reward": ((str,), True),
    "ranks": ((list,), True),
    "players": ((list,), True),
}
LEGACY_TOP_SIZE = 100  # the entries a summary kept before it signed its top_size
NOT_SIGNED = ("signature",)  # the only field of a summary outside its signed payload


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values of the same type: 200 and 200.0 differ (a float is not the integer that was signed),
    and so do 1 and true."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def difference(a: Any, b: Any, path: str) -> tuple[str, Any, Any] | None:
    """Where two JSON values first differ, by same_json (`top[1].score`, and the two values there), or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}", a.get(key), b.get(key)
            found = difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return next(
            (d for i, (x, y) in enumerate(zip(a, b, strict=True)) if (d := difference(x, y, f"{path}[{i}]"))), None
        )
    return None if same_json(a, b) else (path, a, b)


def _json_type(value: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array", dict: "object"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def shape_problems(
    value: Any, fields: dict[str, tuple[tuple[type, ...], bool]], where: str, what: str
) -> list[tuple[str, str]]:
    """(field, problem) for each field missing, of another JSON type, or not of the format."""
    if not isinstance(value, dict):
        return [(where, f"is {_json_type(value)}, not an object")]
    found = []
    for field, (types, required) in fields.items():
        if field not in value:
            if required:
                found.append((f"{where}{field}", "missing"))
        elif type(value[field]) not in types:  # type(), not isinstance: true is not an integer, 1.0 is not 1
            allowed = " or ".join(_json_type(t()) if t is not NULL else "null" for t in types)
            found.append((f"{where}{field}", f"is {value[field]!r} ({_json_type(value[field])}), not {allowed}"))
    for field in sorted(set(value) - set(fields)):
        found.append((f"{where}{field}", f"is not a field of {what}: its meaning is unknown, so it cannot verify"))
    return found


def signed_fields(report: Report, document: dict[str, Any], payload: dict[str, Any]) -> bool:
    """The summary as given is the signed payload exactly: no field unsigned, none changed (by JSON type too)."""
    problems = []
    for key in sorted(set(document) | set(payload)):
        if key in NOT_SIGNED:
            continue
        if key not in payload:
            problems.append(f"{key} is in the summary but not signed: an unsigned field cannot verify")
        elif key not in document:
            problems.append(f"{key} is signed but missing from the summary")
        elif found := difference(document[key], payload[key], key):
            problems.append(f"{found[0]} is {found[1]!r} here, {found[2]!r} in the signed payload")
    problems += [f"{field}: {problem}" for field, problem in shape_problems(payload, SUMMARY_FIELDS, "", "a summary")]
    for problem in problems:
        report.fail("summary signed fields", problem)
    if not problems:
        report.ok("summary signed fields", "every field is signed, of the format and of its signed JSON type")
    return not problems


def standings_problems(payload: dict[str, Any], standings: Standings, seq: int) -> list[tuple[str, str]]:
    """(field, problem) where the summary is not the replay's: total, each top entry, the top's length, rewards."""
    upto, found = f"records 1..{seq}", []
    total, top = payload["total_players"], payload["top"]
    if total != standings.total:
        found.append(("total_players", f"the summary says {total}, {upto} give {standings.total}"))
    size = payload.get("top_size", LEGACY_TOP_SIZE)
    if size < 1:
        found.append(("top_size", f"{size} is not a positive integer"))
        size = LEGACY_TOP_SIZE
    want = min(size, standings.total)
    if len(top) != want:
        found.append(
            ("top", f"lists {len(top)} entries, {upto} give {standings.total} players: its top {size} is {want}")
        )
    groups: dict[tuple[Any, str], list[str]] = {}
    for e in standings.entries:
        groups.setdefault((e.score, e.at), []).append(e.player)
    for i, listed in enumerate(top):
        where = f"top[{i}]"
        shape = shape_problems(listed, ENTRY_FIELDS, f"{where}.", "a top entry")
        if shape or i >= len(standings.entries):
            found += shape
            continue
        entry = standings.entries[i]
        if listed["rank"] != i + 1:
            found.append((f"{where}.rank", f"is {listed['rank']}, its place in the list is rank {i + 1}"))
        if not same_json(listed["score"], entry.score):
            found.append(
                (f"{where}.score", f"the summary says {listed['score']!r}, rank {i + 1} of {upto} has {entry.score!r}")
            )
        elif "at" in listed and listed["at"] != entry.at:
            found.append((f"{where}.at", f"the summary says {listed['at']!r}, rank {i + 1} reached it at {entry.at}"))
        elif "player" in listed:
            tied = groups.get((entry.score, entry.at), [])
            if listed["player"] not in tied:
                found.append((f"{where}.player", f"{listed['player']} is not rank {i + 1} of {upto} (or a tie of it)"))
            else:
                tied.remove(listed["player"])
    for r, reward in enumerate(payload["rewards"]):
        found += _reward_problems(f"rewards[{r}]", reward, top, size)
    return found


def _reward_problems(where: str, reward: Any, top: list[Any], size: int) -> list[tuple[str, str]]:
    shape = shape_problems(reward, REWARD_FIELDS, f"{where}.", "a reward")
    if shape:
        return shape
    ranks = reward["ranks"]
    if len(ranks) != 2 or any(type(r) is not int for r in ranks) or not 1 <= ranks[0] <= ranks[1]:
        return [(f"{where}.ranks", f"{ranks!r} is not [first, last] with integers 1 <= first <= last")]
    first, last = ranks
    if last > size:
        return [(f"{where}.ranks", f"reach rank {last}, past the summary's top_size {size}: its winners are unknown")]
    expected = [e for e in top if isinstance(e, dict) and first <= e.get("rank", 0) <= last]
    if same_json(reward["players"], expected):
        return []
    named = [p.get("rank") for p in reward["players"] if isinstance(p, dict)]
    missing = [e["rank"] for e in expected if e["rank"] not in named]
    detail = f"missing rank{'s' * (len(missing) > 1)} {', '.join(map(str, missing))}" if missing else "not the top's"
    return [(f"{where}.players", f"names ranks {named}, the top's ranks {first}..{last} are {len(expected)}: {detail}")]


def check_standings(report: Report, payload: dict[str, Any], records: list[dict[str, Any]], order: str) -> None:
    """The standings against the replay in the signed order; if they fail and the other order would give them,
    the order is named as the field that is wrong."""
    seq = payload["log_head"]["seq"]
    problems = standings_problems(payload, replay(records, order), seq)
    if not problems:
        report.ok(
            "summary standings",
            f"total_players {payload['total_players']}, the whole top {len(payload['top'])} (rank and score) and "
            f"every reward's players follow from records 1..{seq} ({order})",
        )
        return
    other = next(o for o in ORDERS if o != order)
    if not standings_problems(payload, replay(records, other), seq):
        report.fail("summary order", f"is {order}, but records 1..{seq} give this top in {other} order")
        return
    for field, problem in problems:
        report.fail(f"summary {field}", problem)
