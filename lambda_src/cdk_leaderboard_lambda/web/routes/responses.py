"""The response bodies' schemas, by the name a route's `response` gives (routes.Route.response): the OpenAPI
document's components (openapi.py), which the tests validate real answers against."""

from __future__ import annotations

from typing import Any

from ...domain.hashchain import KINDS as LOG_KINDS
from ...domain.plausibility import ACTIONS as RULE_ACTIONS
from ...shared import limits
from ...shared.frozen import Frozen, freeze

_INT = freeze({"type": "integer"})
_STR = freeze({"type": "string"})
_BOOL = freeze({"type": "boolean"})
_NULLABLE_STR = freeze({"type": "string", "nullable": True})
_PERIOD_STATUS = freeze(
    {
        "enum": list(limits.PERIOD_STATUSES),
        "description": "upcoming before starts_at, open from starts_at until ends_at, ended after it until the "
        "scheduled closing stores its summary, then closed",
    }
)


def _obj(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict:
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
    }


def ref(name: str) -> dict:
    """A reference to the schema of this name, as the document's paths and schemas give it."""
    return {"$ref": f"#/components/schemas/{name}"}


_HEX64 = freeze({"type": "string", "pattern": "^[0-9a-f]{64}$"})
# One record of a board period's log (hashchain.py): exactly these fields, anyone can check them.
LOG_RECORD = freeze(
    {
        **_obj(
            {
                "seq": {"type": "integer", "minimum": 1},
                "at": _STR,
                "kind": {"enum": list(LOG_KINDS)},
                "score": {"type": "integer", "nullable": True},
                "player": _HEX64,
                "prev_hash": _HEX64,
                "hash": _HEX64,
            }
        ),
        "additionalProperties": False,
    }
)


# A player's own quarantined submissions (GET /players/{player_id}, their token only), on no list until approved.
PLAYER_PENDING = freeze(
    {
        "type": "array",
        "items": _obj({"board_id": _STR, "pending_id": _STR, "score": _INT, "rule": _STR, "submitted_at": _STR}),
        "description": "the player's submissions a board's rule holds back for review: by board, oldest first",
    }
)
# A board's plausibility rules, by name: the threshold and what a score past it gets. The admin key's only.
BOARD_RULES = freeze(
    {
        "type": "object",
        "additionalProperties": _obj({"value": {"type": "number"}, "action": {"enum": list(RULE_ACTIONS)}}),
    }
)

SCHEMAS: Frozen = freeze(
    {
        "Error": _obj({"error": _STR}),
        "Entry": _obj(
            {"rank": _INT, "player_id": _STR, "player_name": _STR, "score": _INT},
            {"metadata": {"type": "object"}},
        ),
        "DefaultSubmit": _obj(
            {
                "player_id": _STR,
                "player_name": _STR,
                "score": _INT,
                "boards": {
                    "type": "array",
                    "items": _obj({"leaderboard_id": _STR, "period": _STR, "best_score": _INT, "improved": _BOOL}),
                },
            }
        ),
        "Leaderboard": _obj(
            {"leaderboard_id": _STR, "period": _STR, "entries": {"type": "array", "items": ref("Entry")}}
        ),
        "PlayerStats": _obj(
            {
                "player_id": _STR,
                "player_name": _STR,
                "boards": {
                    "type": "array",
                    "items": _obj(
                        {
                            "leaderboard_id": _STR,
                            "period": _STR,
                            "score": _INT,
                            "rank": _INT,
                            "total_players": _INT,
                            "percentile": {"type": "number"},
                        },
                        {"hidden": {"type": "boolean"}},
                    ),
                },
            }
        ),
        "Snapshot": _obj(
            {
                "snapshot_id": _STR,
                "leaderboard_id": _STR,
                "period": _STR,
                "taken_at": _STR,
                "entries": {"type": "array", "items": ref("Entry")},
            }
        ),
        "SnapshotList": _obj(
            {
                "leaderboard_id": _STR,
                "period": _STR,
                "snapshots": {
                    "type": "array",
                    "items": _obj(
                        {"snapshot_id": _STR, "taken_at": _STR, "entries": {"type": "array", "items": ref("Entry")}}
                    ),
                },
            }
        ),
        "Simulated": _obj({"players": _INT, "writes": _INT, "boards": {"type": "array", "items": _STR}}),
        "Board": _obj(
            {
                "board_id": _STR,
                "name": _STR,
                "order": {"enum": list(limits.ORDERS)},
                "operator": {"enum": list(limits.OPERATORS)},
                "periods": {
                    "type": "array",
                    "items": _obj(
                        {"period": _STR, "current": _STR, "next_reset": {"type": "string", "nullable": True}}
                    ),
                },
                "min_score": _INT,
                "max_score": _INT,
                "created_at": {"type": "string", "nullable": True},
                "generation": _STR,
                "shards": _INT,
                "submissions": {"enum": list(limits.SUBMISSION_MODES)},
            },
            {
                "rules": {**BOARD_RULES, "description": "in the admin's answers only (create, change): never public"},
                "max_submissions_per_minute": _INT,
                "max_open_runs": _INT,
                "starts_at": _STR,
                "ends_at": _STR,
                "rewards": {
                    "type": "array",
                    "items": _obj({"reward": _STR, "ranks": {"type": "array", "items": _INT}}),
                },
                "tiers": {"type": "array", "items": _obj({"name": _STR, "min_percentile": _INT})},
                # GET /leaderboards/{board} only, while live updates are on (docs/API.md, "Live updates").
                "live": _obj(
                    {
                        "realtime_url": _STR,
                        "http_host": _STR,
                        "token_path": _STR,
                        "channels": {"type": "object", "additionalProperties": _STR},
                    }
                ),
            },
        ),
        "BoardList": _obj(
            {"leaderboards": {"type": "array", "items": ref("Board")}, "limit": _INT}, {"next_cursor": _STR}
        ),
        "Deletion": _obj(
            {"board_id": _STR, "status": {"enum": ["deleting", "deleted"]}, "deleted_entries": _INT},
            {"archived": ref("GenerationRef")},
        ),
        "GenerationRef": _obj(
            {"generation": _STR, "deleted_at": _STR, "keep_until": _STR, "periods_url": _STR},
            {"created_at": _NULLABLE_STR},
        ),
        "BoardSubmit": _obj(
            {
                "board_id": _STR,
                "player_id": _STR,
                "player_name": _STR,
                "periods": {
                    "type": "array",
                    "items": _obj(
                        {"leaderboard_id": _STR, "period": _STR, "period_id": _STR, "score": _INT, "changed": _BOOL},
                        {"rank": _INT},
                    ),
                },
            }
        ),
        "Bulk": _obj(
            {
                "board_id": _STR,
                "accepted": _INT,
                "rejected": _INT,
                "results": {
                    "type": "array",
                    "items": _obj({"index": _INT, "status": _INT}, {"result": ref("BoardSubmit"), "error": _STR}),
                },
            }
        ),
        "Page": _obj(
            {
                "board_id": _STR,
                "leaderboard_id": _STR,
                "period": _STR,
                "period_id": _STR,
                "entries": {"type": "array", "items": ref("Entry")},
            },
            {"next_cursor": _STR, "min_score": _INT, "max_score": _INT, "rank_mode": {"enum": list(limits.RANK_MODES)}},
        ),
        "Around": _obj(
            {
                "board_id": _STR,
                "leaderboard_id": _STR,
                "period": _STR,
                "period_id": _STR,
                "rank": _INT,
                "player_id": _STR,
                "player_name": _STR,
                "score": _INT,
                "total_players": _INT,
                "percentile": {"type": "number"},
                "metadata": {"type": "object", "nullable": True},
                "above": {"type": "array", "items": ref("Entry")},
                "below": {"type": "array", "items": ref("Entry")},
            },
            {
                "rank_mode": {"enum": list(limits.RANK_MODES)},
                "tier": {"type": "string", "nullable": True},
                "hidden": {
                    "type": "boolean",
                    "description": "the player is hidden on this board: others do not see them",
                },
            },
        ),
        "PeriodList": _obj(
            {
                "board_id": _STR,
                "periods": {
                    "type": "array",
                    "items": _obj(
                        {
                            "period_id": _STR,
                            "kind": _STR,
                            "status": _PERIOD_STATUS,
                            "starts_at": _NULLABLE_STR,
                            "ends_at": _NULLABLE_STR,
                        },
                        {"closed_at": _STR, "total_players": _INT, "next_reset": _NULLABLE_STR},
                    ),
                },
            },
            {"generation": _STR, "archived": ref("GenerationRef")},
        ),
        "Friends": _obj(
            {
                "board_id": _STR,
                "period": _STR,
                "period_id": _STR,
                "entries": {
                    "type": "array",
                    "items": _obj({"rank": _INT, "player_id": _STR, "player_name": _STR, "score": _INT}),
                },
            },
            {"next_cursor": _STR},
        ),
        "PlayerBoards": _obj(
            {
                "player_id": _STR,
                "boards": {
                    "type": "array",
                    "items": _obj(
                        {
                            "board_id": _STR,
                            "period": _STR,
                            "period_id": _STR,
                            "rank": _INT,
                            "score": _INT,
                            "total_players": _INT,
                            "percentile": {"type": "number"},
                        },
                        {"hidden": {"type": "boolean"}},
                    ),
                },
                "limit": _INT,
            },
            {"next_cursor": _STR},
        ),
        "PlayerPending": _obj({"player_id": _STR, "pending": PLAYER_PENDING}),
        "PendingScore": _obj({"status": {"enum": ["pending"]}, "pending_id": _STR, "rule": _STR}),
        "Pending": _obj(
            {"pending_id": _STR, "player_id": _STR, "score": _INT, "rule": _STR, "submitted_at": _STR},
            {"run_id": _STR, "evidence": {"type": "object"}},
        ),
        "PendingList": _obj(
            {"pending": {"type": "array", "items": ref("Pending")}, "rules": BOARD_RULES}, {"next_cursor": _STR}
        ),
        "PendingDecision": _obj(
            {"pending_id": _STR, "status": {"enum": ["approved", "rejected"]}},
            {
                "result": {
                    "type": "object",
                    "description": "approved: the submission's result, as POST .../scores gives it",
                },
                "closed_periods": {
                    "type": "array",
                    "items": _STR,
                    "description": "approved: the periods it was held for that had ended, left as they closed",
                },
            },
        ),
        "Moderation": _obj({"board_id": _STR, "player_id": _STR, "hidden": {"type": "boolean"}, "moved_entries": _INT}),
        "HiddenPlayers": _obj(
            {"board_id": _STR, "players": {"type": "array", "items": _obj({"player_id": _STR, "hidden_at": _STR})}},
            {"next_cursor": _STR},
        ),
        "PlayerRemoval": _obj({"board_id": _STR, "player_id": _STR, "deleted_entries": _INT}),
        "Erasure": _obj(
            {"erasure_id": _STR, "status": {"enum": ["erasing", "erased"]}, "requested_at": _STR, "status_url": _STR},
            {"finished_at": _STR},
        ),
        "Period": _obj(
            {
                "board_id": _STR,
                "period_id": _STR,
                "kind": _STR,
                "status": _PERIOD_STATUS,
                "starts_at": _NULLABLE_STR,
                "ends_at": _NULLABLE_STR,
                "total_players": _INT,
            },
            {
                "next_reset": _NULLABLE_STR,
                "generation": _STR,
                "leaderboard_id": _STR,
                "closed_at": _STR,
                "order": {"enum": ["desc", "asc"], "description": "the board's order when it closed (signed)"},
                "top_size": {**_INT, "description": "entries `top` keeps: min(top_size, total_players) (signed)"},
                "snapshot_id": _STR,
                "log_head": _obj({"seq": _INT, "hash": _STR}),
                "signature": {**_STR, "description": "compact JWS (EdDSA) over this summary without signature"},
                "unsigned": {**_STR, "description": "why the summary has no signature (its log did not give it)"},
                "top": {"type": "array", "items": ref("Entry")},
                "tier_cutoffs": {"type": "object", "additionalProperties": {"type": "integer", "nullable": True}},
                "rewards": {
                    "type": "array",
                    "items": _obj(
                        {
                            "reward": _STR,
                            "ranks": {"type": "array", "items": _INT},
                            "players": {"type": "array", "items": ref("Entry")},
                        }
                    ),
                },
            },
        ),
        "PeriodLog": _obj({"records": {"type": "array", "items": LOG_RECORD}}, {"next_cursor": _STR}),
        "Receipt": _obj({"receipt": {**_STR, "description": "compact JWS (EdDSA, RFC 8037): docs/PROVING.md"}}),
        "Jwks": _obj(
            {
                "keys": {
                    "type": "array",
                    "items": _obj(
                        {
                            "kty": {"enum": ["OKP"]},
                            "crv": {"enum": ["Ed25519"]},
                            "x": _STR,
                            "kid": _STR,
                            "alg": {"enum": ["EdDSA"]},
                            "use": {"enum": ["sig"]},
                            "status": {"enum": ["current", "retired", "revoked"]},
                        },
                        {"retired_at": _STR, "revoked_at": _STR},
                    ),
                }
            }
        ),
        "OpenApi": _obj({"openapi": _STR, "paths": {"type": "object"}}),
        "PlayerToken": _obj({"token": _STR, "expires_at": _STR}),
        "LiveToken": _obj({"token": _STR, "expires_at": _INT, "operations": _INT}),
        "Run": _obj({"run_id": _STR, "run_token": _STR, "seed": _INT, "started_at": _STR, "expires_at": _STR}),
    }
)
