"""THE table schema facts shared by the CDK stack (which builds the tables) and the runtime code.

Pure data, importable without boto3 or aws-cdk-lib. Local tables are created from the
synthesized template, so they follow from here too.
"""

# leaderboard-scores: one item per (player, board); mutable, best score per board.
SCORES_PARTITION_KEY = "player_id"
SCORES_SORT_KEY = "leaderboard_id"
RANK_INDEX = "leaderboard-rank-index"
RANK_INDEX_PARTITION_KEY = "leaderboard_id"
RANK_INDEX_SORT_KEY = "rank_key"  # encoded by cdk_leaderboard_lambda.shared.item_keys
# A hidden player's entries keep their rank key here instead: outside the (sparse) rank index, in their place.
HIDDEN_RANK_KEY = "hidden_rank_key"
RANK_INDEX_PROJECTED = ("score", "player_name", "metadata", "reached_at")  # what ranking reads need beyond the keys
TTL_ATTRIBUTE = "expires_at"  # daily/weekly entries expire after the retention
# An erasure's fence: an item in an entry's place holding only this (no score, no name, no rank key), which every
# entry write's condition refuses, so a submission racing the erasure cannot leave an entry behind.
ERASING_MARK = "erasing"
FENCE_COMMITMENT = "log_player"  # a fence's attribute holding the player's commitment on its board period's log

# leaderboard-snapshots: the append-only snapshot archive; one board's snapshots are one partition.
SNAPSHOTS_PARTITION_KEY = "leaderboard_id"
SNAPSHOTS_SORT_KEY = "taken_at"  # ISO-8601 UTC, so the sort key order is time order
