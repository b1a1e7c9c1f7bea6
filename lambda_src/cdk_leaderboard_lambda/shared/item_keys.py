"""Every key the scores table and its rank index use, encoded in one module so every reader and writer agrees.

Items of the scores table (partition key `player_id`, sort key `leaderboard_id`):

    entry      (player id,                     index partition)   a player's score on one board period (shard)
    counter    ("#buckets#" + index partition,  range start)      entries in a key range, see rank_counters.py
               ("#segments#" + index partition, range start)      entries in a run of buckets (a counter band)
    board      ("#boards",                      board id)         a board's configuration
    archive    ("#archives",                    board id "#" gen) a deleted board generation's config, kept a while
    hidden     ("#hidden#" + board id,          player id)        a player hidden on a board (moderation)
    live sent  ("#live#" + board id,            period id)        what was last published live (broadcasting.py)
    run        ("#runs#" + keyed player hash,   run id)           a client's run: its player, board, use
    open run   ("#runs#" + keyed player hash,   "#open#" board "#" n) place n of the player's open runs on a board
    idempotency records ("#idempotency", ...), kept by Powertools

An index partition (the entry's `leaderboard_id`, the rank index's partition key) is one period of one board,
or one shard of it: `all-time`, `daily-2026-11-30` on the default board; `race#weekly-2026-W48`, or
`race#weekly-2026-W48!3` on a board with shards; a board created since generations names its generation there,
`race.k3f9a2mq#weekly-2026-W48`. '#' never starts a player id, so the item kinds cannot collide.

rank_key = <ordered score, 16 digits>#<reached-at ms, 13 digits>#<player_id>

The ordered score is MAX_SCORE − score on a higher-is-better (desc) board and the score itself on a lower-is-better
(asc) board. Fixed-width decimal strings compare like the numbers they encode, so an ASCENDING query of the index
returns the best entry first; among equal scores the player who reached it earlier comes first, and player_id keeps
the key unique.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, replace

from .limits import MAX_SCORE, SCORE_DIGITS

_SCORE_WIDTH = SCORE_DIGITS
_TIME_WIDTH = 13  # epoch milliseconds until the year 2286

FIRST_LO = "0"  # below every rank key (they start with _SCORE_WIDTH digits)
LAST_HI = "~"  # above every rank key

DEFAULT_BOARD_ID = "global"
BOARDS_PARTITION = "#boards"
BOARD_COUNT_KEY = ("#board-count", "boards")  # how many board items the partition above holds (the cap's count)


def board_key(board_id: str) -> tuple[str, str]:
    """The (partition, sort) key of a stored board's item in the scores table."""
    return BOARDS_PARTITION, board_id


IDEMPOTENCY_PARTITION = "#idempotency"
_CLOSINGS_PREFIX = "#closings#"
BUCKETS, BANDS = 0, 1  # the counter levels: buckets of rank keys, and bands of buckets
_COUNTER_PREFIXES = ("#buckets#", "#segments#")  # the stored names stay: bands are kept under "#segments#"


# --- rank keys ----------------------------------------------------------------------------


def _ordered(score: int, descending: bool) -> int:
    return MAX_SCORE - score if descending else score


def rank_key(score: int, reached_at_ms: int, player_id: str, descending: bool = True) -> str:
    return f"{_ordered(score, descending):0{_SCORE_WIDTH}d}#{reached_at_ms:0{_TIME_WIDTH}d}#{player_id}"


def score_from_rank_key(key: str, descending: bool = True) -> int:
    return _ordered(int(key.split("#", 1)[0]), descending)


def score_range(low: int, high: int, descending: bool = True) -> tuple[str, str]:
    """The rank_key interval (for BETWEEN) holding exactly the scores in [low, high]."""
    a, b = sorted((_ordered(low, descending), _ordered(high, descending)))
    # "$" sorts right after "#": every key of ordered score b is below f"{b}$".
    return f"{a:0{_SCORE_WIDTH}d}#", f"{b:0{_SCORE_WIDTH}d}$"


def first_key_of_score(score: int, descending: bool = True) -> str:
    """Below every rank key of this score and above every key of a better one: the entries ahead of it are
    exactly those that rank strictly better (a competition rank counts them)."""
    return f"{_ordered(score, descending):0{_SCORE_WIDTH}d}#"


def before(key: str) -> str:
    """The greatest bound that is below `key` and above every string that sorts before it.

    DynamoDB's BETWEEN is inclusive; `BETWEEN lo AND before(key)` is the half-open [lo, key).
    """
    return key[:-1] + chr(ord(key[-1]) - 1) + "\U0010ffff"


_TIE_WIDTH = _SCORE_WIDTH + 1 + _TIME_WIDTH + 1  # "<score>#<ms>#": what a rank key holds before the player id


def separator(previous: str, key: str) -> str | None:
    """The shortest prefix of `key` that sorts above `previous` (previous < key): a range boundary between the
    two, cut in the score and time only. None when the two tie on score and millisecond: the only boundary
    between them would hold part of a player id, and counter ranges must never name a player (an erasure could
    not remove it), so no range starts between them."""
    i = next((i for i, (a, b) in enumerate(zip(previous, key, strict=False)) if a != b), len(previous))
    return key[: i + 1] if i < _TIE_WIDTH - 1 else None


# --- standings ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """One standing a score can take a place in: a period of a generation of a board, one shard of it, and (later)
    one partition of it, a segment value such as a country, a league group or a team. Every key of its items comes
    from here (encoded by the functions below, byte for byte as stored data holds them): the board period's id (its
    log, snapshots and closings), the rank index partition of its entries and the partitions of its counters."""

    board_id: str
    period_id: str
    generation: str = "0"  # LEGACY_GENERATION: the keys as they were before generations
    partition: str | None = None  # None: the whole board (no standing has a partition yet)
    shard: int = 0  # which of `shards` rank index partitions (shard_of the player)
    shards: int = 1

    @classmethod
    def of_player(cls, board_id: str, generation: str, period_id: str, player_id: str, shards: int = 1) -> Standing:
        """The board's own standing (no partition) on a period, in the shard that holds the player's entry."""
        return cls(board_id, period_id, generation, None, shard_of(player_id, shards), shards)

    def shard_standings(self) -> list[Standing]:
        """This standing in each of its shards (what a read of the whole standing reads)."""
        return [replace(self, shard=k) for k in range(self.shards)]

    @property
    def evidence_id(self) -> str:
        return evidence_id(self.board_id, self.generation)

    @property
    def board_period(self) -> str:
        """The board period's id (leaderboard_id): `all-time`, `race#daily-2026-11-30`, `cup.k3f9a2mq#tournament`."""
        if self.partition is not None:  # its encoding comes with the first feature that writes one (and reads it)
            raise ValueError(f"no item key encodes partition {self.partition!r} of a standing yet")
        return leaderboard_id(self.evidence_id, self.period_id)

    @property
    def index_partition(self) -> str:
        """The rank index partition (an entry's sort key): the board period, `!<shard>` after it on a sharded board."""
        return shard_partition(self.board_period, self.shard, self.shards)

    def counter_partition(self, level: int) -> str:
        """The scores-table partition of one level of this standing's rank counters (BUCKETS or BANDS)."""
        return counter_partition(self.index_partition, level)


# --- index partitions ---------------------------------------------------------------------


def leaderboard_id(board_id: str, period_id: str) -> str:
    """One period of a board. The default board keeps the original design's ids (`all-time`, `daily-…`).
    `board_id` may be an evidence id (evidence_id below): one generation of a board."""
    return period_id if board_id == DEFAULT_BOARD_ID else f"{board_id}#{period_id}"


def is_default_board(leaderboard_id_: str) -> bool:
    """Whether a board period id belongs to the default board (other boards' ids hold their board id)."""
    return "#" not in leaderboard_id_


# --- board generations ----------------------------------------------------------------------
# Each creation of a stored board is a new generation (board_catalog.create_board): a random id that qualifies the
# board id in every key of its entries and evidence (index partitions, logs, commitments, closings, snapshots), so a
# board created again under a deleted one's id shares none of them. Boards stored before generations existed, and
# built-in and declared boards, are LEGACY_GENERATION: their keys are as they always were. '.' is not in board ids.
LEGACY_GENERATION = "0"
_GENERATION_MARK = "."


def evidence_id(board_id: str, generation: str) -> str:
    """The board id as the keys of one generation's entries and evidence name it: `cup` (legacy), `cup.k3f9a2mq`."""
    return board_id if generation == LEGACY_GENERATION else f"{board_id}{_GENERATION_MARK}{generation}"


def split_evidence_id(evidence: str) -> tuple[str, str]:
    """(board id, generation) of an evidence id: the inverse of evidence_id."""
    board_id, mark, generation = evidence.partition(_GENERATION_MARK)
    return board_id, (generation if mark else LEGACY_GENERATION)


def shard_of(player_id: str, shards: int) -> int:
    if shards == 1:
        return 0
    return int(hashlib.sha256(player_id.encode()).hexdigest()[:8], 16) % shards


def shard_partition(board_period: str, shard: int, shards: int) -> str:
    """The index partition of one shard of a board period (the period itself when unsharded)."""
    return board_period if shards == 1 else f"{board_period}!{shard}"


def is_entry(player_id: str) -> bool:
    """Whether a scores-table item with this partition key is a player's entry (not a counter, board, record)."""
    return not player_id.startswith("#")


def shard_in(partition: str) -> int:
    """The shard of an index partition: the inverse of shard_partition (0 on a board of one shard)."""
    _, mark, shard = partition.partition("!")
    return int(shard) if mark else 0


# --- counters -----------------------------------------------------------------------------


def counter_partition(partition: str, level: int) -> str:
    """The scores-table partition key of one level of an index partition's counters."""
    return _COUNTER_PREFIXES[level] + partition


# --- closing summaries ----------------------------------------------------------------------


def closings_partition(board_id: str) -> str:
    """The scores-table partition of a board's closing summaries (no TTL: they outlive the entries)."""
    return _CLOSINGS_PREFIX + board_id


def closing_sort_key(ends_at_iso: str, period_id: str) -> str:
    """A closed period's sort key: its end first, so a board's summaries list newest first across kinds."""
    return f"{ends_at_iso}#{period_id}"


# --- archived board generations ---------------------------------------------------------------

ARCHIVES_PARTITION = "#archives"  # every deleted generation's record: one Query lists them (erasure reads them all)


def archive_key(board_id: str, generation: str) -> tuple[str, str]:
    """A deleted board generation's record (board_catalog.py); a board id's sort keys share archive_prefix."""
    return ARCHIVES_PARTITION, f"{archive_prefix(board_id)}{generation}"


def archive_prefix(board_id: str) -> str:
    return f"{board_id}#"  # '#' is not in board ids: `cup#` never begins `cup-2#...`


# --- idempotent writes ----------------------------------------------------------------------


def operation_id(idempotency_key: str, scope: str, index: int = 0) -> str:
    """A short id for one entry of one idempotent request, stored on the entries it changed."""
    return hashlib.sha256(f"{scope}\0{idempotency_key}\0{index}".encode()).hexdigest()[:16]


def log_key_partition(secret: bytes, player_id: str) -> str:
    """The scores-table partition of a player's commitment key for the logs (data/chain.py): a keyed hash of the id,
    so that what erasure leaves in its place for a while (no key) does not name the player."""
    return "#logkey#" + _keyed_digest(secret, "log-key", player_id)


# How an approval's operation id starts (quarantine.approve): the log tells an approved score from a submitted one
# by the operation the entry's write remembers (chain_appending.py).
APPROVAL_OPERATION_PREFIX = "approve-"


# --- a player's entries across boards -----------------------------------------------------


def board_period_of(partition: str) -> str:
    return partition.split("!", 1)[0]


def board_and_period(partition: str) -> tuple[str, str]:
    """(board id, period id) of an entry's index partition: the inverse of leaderboard_id (and shard_partition)."""
    evidence, period_id = evidence_and_period(partition)
    return split_evidence_id(evidence)[0], period_id


def evidence_and_period(partition: str) -> tuple[str, str]:
    """(evidence id, period id) of an entry's index partition: whose log and commitments its changes belong to."""
    board_period = board_period_of(partition)
    if is_default_board(board_period):
        return DEFAULT_BOARD_ID, board_period
    evidence, _, period_id = board_period.partition("#")
    return evidence, period_id


# --- per-player submission limits ------------------------------------------------------------

RUNS_PREFIX = "#runs#"


def run_key(secret: bytes, player_id: str, run_id: str) -> tuple[str, str]:
    """The (partition, sort) key of a run (runs.py): under a keyed hash of its player's id (as the rate counters),
    so an erasure finds the player's runs with one Query, and the items never name the player."""
    return runs_partition(secret, player_id), run_id


def runs_partition(secret: bytes, player_id: str) -> str:
    return RUNS_PREFIX + _keyed_digest(secret, "runs", player_id)


OPEN_RUN_PREFIX = "#open#"  # '#' never starts a run id (secrets.token_urlsafe): no collision with a run


def open_runs_prefix(board_id: str) -> str:
    """The sort-key prefix of a player's open-run places on one board (in their runs partition)."""
    return f"{OPEN_RUN_PREFIX}{board_id}#"


def open_run_key(secret: bytes, player_id: str, board_id: str, place: int) -> tuple[str, str]:
    return runs_partition(secret, player_id), f"{open_runs_prefix(board_id)}{place}"


PENDING_PREFIX = "#pending#"
PENDING_OF_PREFIX = "#pending-of#"


def pending_key(board_id: str, pending_id: str) -> tuple[str, str]:
    """A quarantined submission (quarantine.py): one partition per board, in pending-id (submission) order."""
    return PENDING_PREFIX + board_id, pending_id


def pending_of_partition(secret: bytes, player_id: str) -> str:
    """A player's pointers to their pending submissions (sort key "<board>#<pending id>"): their own lookup and
    an erasure find them with one Query; a keyed hash of the id, as the rate counters."""
    return PENDING_OF_PREFIX + _keyed_digest(secret, "pending-of", player_id)


RATE_PREFIX = "#rate#"


def rate_partition(secret: bytes, player_id: str) -> str:
    """The scores-table partition key of one player's submission counters (one item per board and minute): a keyed
    hash of the id, as the erasure item's, so that a counter a submission racing an erasure takes (before its read
    finds the erasure) never names the erased player."""
    return RATE_PREFIX + _keyed_digest(secret, "rate-counter", player_id)


def rate_window(board_id: str, minute: int) -> str:
    """The sort key of one board's submission counter for one minute (epoch minutes)."""
    return f"{board_id}#{minute}"


# --- erasure on request ---------------------------------------------------------------------

ERASURES_PARTITION = "#erasures"  # audit records: that an erasure happened and when, never whose
ERASING_PREFIX = "#erasing#"  # an erasure's state and fence (deleted when lifted) and token floor, by a keyed hash
ERASING_SORT = "state"
FENCES_PARTITION = "#fences"  # erasures to go on with or whose fence is still up, by when (never whose)
ERASED_PLAYER_ID = "erased"  # what snapshots show in place of an erased player
ERASED_PLAYER_NAME = "(erased player)"


def erasing_key(secret: bytes, player_id: str) -> tuple[str, str]:
    """The scores-table key of the player's erasure item: a keyed hash (HMAC-SHA256 with the digest key)
    of the id, never the id, so the item may outlive the erasure's answer and still be found from the id."""
    return ERASING_PREFIX + _keyed_digest(secret, "erasure-subject", player_id), ERASING_SORT


TOKEN_FLOOR_SORT = "tokens"


def token_floor_key(secret: bytes, player_id: str) -> tuple[str, str]:
    """The scores-table key of the player's token floor (tokens issued up to an erasure's answer are refused):
    beside the erasure's item, under the same keyed hash, so it names no one either."""
    return erasing_key(secret, player_id)[0], TOKEN_FLOOR_SORT


# --- live updates ----------------------------------------------------------------------------

_LIVE_PREFIX = "#live#"


def live_sent_key(board_id: str, period_id: str) -> tuple[str, str]:
    """The scores-table key of what was last published for a board period (time and digest of the top): one
    partition per board, outside the rank index (no rank key), so the streams' consumers never see it."""
    return _LIVE_PREFIX + board_id, period_id


def live_switch_key() -> tuple[str, str]:
    """The scores-table key of the live kill switch (`make live-off`): `*` is no board id, so no board's items share
    its partition."""
    return _LIVE_PREFIX + "*", "switch"


def live_token_counter(token_id: str) -> str:
    """The rate-limit store's "player" under which a live subscribe token's operations are counted: `~` is in no
    player id, so no player's counter is touched."""
    return "~live~" + token_id


# --- moderation -------------------------------------------------------------------------------

_HIDDEN_PREFIX = "#hidden#"


def hidden_partition(board_id: str) -> str:
    """The scores-table partition of a board's hidden players (one item each, sort key the player id)."""
    return _HIDDEN_PREFIX + board_id


def _keyed_digest(secret: bytes, purpose: str, text: str) -> str:
    """HMAC-SHA256 of `text` under the deployment's digest key (digest_key.py: never rotated, so these partitions
    never move), as hex: a stable name for a value that must not be stored itself (an erased player's id).
    `purpose` keeps each kind of item's names apart. `secret`: the runtime's digest key (runtime.digest_key.value()),
    which every function here that names a player's item by a keyed hash takes first."""
    return hmac.new(secret, f"{purpose}\0{text}".encode(), hashlib.sha256).hexdigest()
