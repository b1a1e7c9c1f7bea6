"""One model per request body: its JSON Schema (draft 4) is API Gateway's request model (the stack), the OpenAPI
document's requestBody, what the local gateway validates with, and the fields the handler takes (Body.fields; the
handler checks each value again itself, validation.py, since API Gateway applies a model only to application/json).

The route table's own schema fragments, not pydantic: measured with `python -X importtime`, importing pydantic and
declaring one model costs a cold start about ten times what this whole route table does (docs/PERFORMANCE.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...domain import periods, plausibility
from ...shared import limits
from ...shared.frozen import Frozen, freeze
from ...shared.limits import MAX_SCORE
from .fields import BOARD_ID, DEFAULT_BOARD_KINDS, PLAYER_ID, PLAYER_NAME, SCORE, _limit


@dataclass(frozen=True)
class Body:
    """A request body's model: a JSON Schema object whose properties are every field the body may have (frozen
    when the model is made: thaw it, frozen.thaw, to hand it out as JSON)."""

    schema: Frozen

    def __post_init__(self) -> None:
        object.__setattr__(self, "schema", freeze(self.schema))

    @property
    def fields(self) -> frozenset[str]:
        """The body's fields: any other is refused (400 unknown field(s)), by API Gateway and by the handler."""
        return frozenset(self.schema["properties"])


# Request body models (JSON Schema draft 4, which API Gateway validates for application/json). They state
# every rule the handlers enforce that JSON Schema can say; the handlers check them all again themselves.
SCORE_BODY = Body(
    {
        "type": "object",
        "required": ["player_id", "score"],
        "properties": {"player_id": PLAYER_ID, "player_name": PLAYER_NAME, "score": SCORE},
        "additionalProperties": False,
    }
)
SNAPSHOT_BODY = Body(
    {
        "type": "object",
        "properties": {
            "period": {"type": "string", "pattern": periods.pattern(DEFAULT_BOARD_KINDS)},
            "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_SNAPSHOT),
        },
        "additionalProperties": False,
    }
)
SIMULATE_BODY = Body(
    {
        "type": "object",
        "properties": {"players": _limit(limits.MAX_SIMULATED_PLAYERS, limits.DEFAULT_SIMULATED_PLAYERS)},
        "additionalProperties": False,
    }
)
TOURNAMENT_TIME = freeze(
    {
        "type": "string",
        "format": "date-time",
        "pattern": limits.TIMESTAMP_PATTERN,
        "description": "ISO 8601 UTC with Z, to the second or finer (2026-12-01T18:00:00Z): a real date and time of "
        f"the years {limits.FIRST_YEAR}-{limits.LAST_YEAR}, the years period ids name (0000-00-00T00:00:00Z is no "
        "time)",
    }
)
RULES = freeze(
    {
        "type": "object",
        "description": 'plausibility rules (docs/API.md, "Plausibility rules and quarantine"): each a value and what '
        "to do with a score that breaks it, reject (422) or quarantine (202, pending review)",
        "properties": {
            name: {
                "type": "object",
                "required": ["value", "action"],
                "properties": {
                    "value": {
                        "type": "integer" if integral else "number",
                        "minimum": float(low) if not integral else int(low),
                        "maximum": float(high) if not integral else int(high),
                        "description": meaning,
                    },
                    "action": {"type": "string", "enum": list(plausibility.ACTIONS)},
                },
                "additionalProperties": False,
            }
            for name, (low, high, integral, meaning) in plausibility.BOUNDS.items()
        },
        "additionalProperties": False,
    }
)
MAX_OPEN_RUNS = freeze(
    {
        "type": "integer",
        "minimum": 1,
        "maximum": limits.MAX_OPEN_RUNS,
        "description": "runs a player may hold open (started, unused, not over) at once on a client board; starting "
        "one more ends the oldest",
    }
)
BOARD_BODY = Body(
    {
        "type": "object",
        "required": ["board_id"],
        "properties": {
            "board_id": BOARD_ID,
            "name": PLAYER_NAME,
            "order": {"type": "string", "enum": list(limits.ORDERS)},
            "operator": {"type": "string", "enum": list(limits.OPERATORS)},
            "periods": {
                "type": "array",
                "minItems": 1,
                "maxItems": len(periods.KINDS),
                "uniqueItems": True,
                "items": {"type": "string", "enum": list(periods.KINDS)},
            },
            # min_score must not be greater than max_score: JSON Schema cannot compare two fields.
            "min_score": SCORE,
            "max_score": SCORE,
            "shards": {"type": "integer", "minimum": 1, "maximum": limits.MAX_SHARDS},
            "max_submissions_per_minute": {
                "type": "integer",
                "minimum": 1,
                "maximum": limits.MAX_SUBMISSIONS_PER_MINUTE,
            },
            "submissions": {
                "type": "string",
                "enum": list(limits.SUBMISSION_MODES),
                "default": limits.SERVER_SUBMISSIONS,
                "description": "who may submit: server (default: the game key only) or client (also players' own "
                "devices, each submission with the run token of a run it started with a player token)",
            },
            "rules": RULES,
            "max_open_runs": {**MAX_OPEN_RUNS, "default": limits.DEFAULT_OPEN_RUNS},
            # A tournament: both instead of periods (the dependencies below), ends_at after starts_at (JSON Schema
            # cannot compare them).
            "starts_at": TOURNAMENT_TIME,
            "ends_at": TOURNAMENT_TIME,
            "rewards": {
                "type": "array",
                "maxItems": limits.MAX_REWARDS,
                "items": {
                    "type": "object",
                    "required": ["reward", "ranks"],
                    "properties": {
                        "reward": PLAYER_NAME,
                        # first <= last: JSON Schema cannot compare the two
                        "ranks": {
                            "type": "array",
                            "minItems": 2,
                            "maxItems": 2,
                            "items": {"type": "integer", "minimum": 1, "maximum": limits.CLOSING_TOP},
                        },
                    },
                    "additionalProperties": False,
                },
            },
            "tiers": {
                "type": "array",
                "maxItems": limits.MAX_TIERS,
                "items": {
                    "type": "object",
                    "required": ["name", "min_percentile"],
                    "properties": {
                        "name": PLAYER_NAME,
                        "min_percentile": {"type": "integer", "minimum": 0, "maximum": 100},
                    },
                    "additionalProperties": False,
                },
            },
        },
        # starts_at and ends_at come together, and never with periods: a board keeps periods or is a tournament.
        "dependencies": {
            "starts_at": {"required": ["ends_at"], "not": {"required": ["periods"]}},
            "ends_at": {"required": ["starts_at"]},
        },
        "additionalProperties": False,
    }
)
SUBMISSIONS = freeze(
    {
        "type": "string",
        "enum": list(limits.SUBMISSION_MODES),
        "description": "who may submit: server (the game key only) or client (also players' own devices, with a run "
        "token)",
    }
)
BOARD_UPDATE_BODY = Body(
    {
        "type": "object",
        "minProperties": 1,
        "description": "what changes; rules replace the board's rules as a whole ({} removes them)",
        "properties": {"rules": RULES, "submissions": SUBMISSIONS, "max_open_runs": MAX_OPEN_RUNS},
        "additionalProperties": False,
    }
)
BOARD_SCORE_BODY = Body(
    {
        "type": "object",
        "required": ["player_id", "score"],
        "properties": {
            "player_id": PLAYER_ID,
            "player_name": PLAYER_NAME,
            # increment boards take negative deltas; the board's bounds apply to the result
            "score": {"type": "integer", "minimum": -MAX_SCORE, "maximum": MAX_SCORE},
            # at most MAX_METADATA_BYTES as compact JSON (the handler checks the size, depth, keys and numbers;
            # JSON Schema has no depth keyword, and maxProperties bounds only the top level)
            "metadata": {
                "type": "object",
                "maxProperties": limits.MAX_METADATA_KEYS,
                "description": f"any JSON object of at most {limits.MAX_METADATA_BYTES:,} bytes as compact JSON, "
                f"{limits.MAX_JSON_DEPTH} levels deep (the object itself is level 1, each object or array in it one "
                f"more) and {limits.MAX_METADATA_KEYS} keys counted over all its objects, served back as given: its "
                "text Unicode scalar values only (no lone surrogates), its integers from "
                f"-{limits.MAX_SAFE_INTEGER} to {limits.MAX_SAFE_INTEGER} (exact in a double), its other numbers "
                "within a double's range",
            },
            "evidence": {
                "type": "object",
                "maxProperties": limits.MAX_EVIDENCE_KEYS,
                "description": f"for a review if a rule holds the score back: any JSON object of at most "
                f"{limits.MAX_EVIDENCE_BYTES:,} bytes as compact JSON (inputs, a replay's reference), "
                f"{limits.MAX_JSON_DEPTH} levels deep and {limits.MAX_EVIDENCE_KEYS} keys, under the same rules as "
                "metadata; shown in the review queue and sent with the pending event, never on the board",
            },
        },
        "additionalProperties": False,
    }
)
TOKEN_BODY = Body(
    {
        "type": "object",
        "properties": {
            "boards": {
                "type": "array",
                "minItems": 1,
                "maxItems": limits.MAX_TOKEN_BOARDS,
                "uniqueItems": True,
                "items": BOARD_ID,
                "description": "the boards the token may start runs on; absent: every client board",
            },
            "ttl_seconds": {
                **_limit(limits.MAX_PLAYER_TOKEN_SECONDS, limits.DEFAULT_PLAYER_TOKEN_SECONDS),
                "minimum": limits.MIN_PLAYER_TOKEN_SECONDS,
                "description": f"the token's lifetime: {limits.MIN_PLAYER_TOKEN_SECONDS} s to 24 h, "
                f"{limits.DEFAULT_PLAYER_TOKEN_SECONDS} s by default",
            },
        },
        "additionalProperties": False,
    }
)
BULK_BODY = Body(
    {
        "type": "object",
        "required": ["entries"],
        # Each entry is checked on its own: a bad one gets its own error in the results, the others go on.
        "properties": {
            "entries": {"type": "array", "minItems": 1, "maxItems": limits.MAX_BULK, "items": {"type": "object"}},
        },
        "additionalProperties": False,
    }
)
