"""The hash-chained logs with the players' commitment keys, and the deployment's secrets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

Head = tuple[int, str]  # (seq, hash) of a board period's last record


class ChainStore(Protocol):
    """Where the log, its heads and the players' commitment keys live (data/chain.py: DynamoDB, or in memory)."""

    def log_head(self, board_id: str, period_id: str) -> Head | None:
        """The last record's (seq, hash), None before the first: one small strongly consistent read."""
        ...

    def append(
        self,
        board_id: str,
        period_id: str,
        after: Head | None,
        records: list[dict[str, Any]],
        sources: list[str],
        now_s: int,
    ) -> bool:
        """Append `records` (seq after.seq + 1 on, at most MAX_APPEND) and mark the stream records
        `sources` appended, atomically, only if the head is still `after` and no source is marked; else False and
        nothing written."""
        ...

    def appended(self, sources: list[str]) -> set[str]:
        """The stream records among `sources` that an append has marked."""
        ...

    def page(self, board_id: str, period_id: str, after_seq: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` records after seq `after_seq`, in seq order, and whether more follow."""
        ...

    def player_keys(self, player_ids: list[str], now_s: int, *, create: bool = True) -> dict[str, bytes]:
        """Each player's 32-byte commitment key, made for those who have none yet if `create`; none for a player
        whose key erasure forgot lately (data.chain.ERASED_KEY_SECONDS)."""
        ...

    def forget_player(self, player_id: str, now_s: int) -> None:
        """Delete the player's key (erasure)."""
        ...


@dataclass(frozen=True)
class Version:
    """One version of a secret."""

    version_id: str
    value: str
    created_at: float  # epoch seconds: when this version was put (a rotation's time, for the current one)


class SecretStore(Protocol):
    """Where the deployment's secrets live (data/secrets.py: Secrets Manager, or in memory)."""

    def value(self, secret_id: str) -> str:
        """The secret's current value (AWSCURRENT)."""
        ...

    def current_and_previous(self, secret_id: str) -> tuple[Version, Version | None]:
        """Its AWSCURRENT version and the AWSPREVIOUS one (None before the first rotation)."""
        ...
