"""A board's tiers and rewards as the issue's example declares them (the closing tests check their cut-offs)."""

TIERS = [
    {"name": "diamond", "min_percentile": 99},
    {"name": "gold", "min_percentile": 90},
    {"name": "silver", "min_percentile": 50},
    {"name": "bronze", "min_percentile": 0},
]
REWARDS = [{"reward": "trophy", "ranks": [1, 1]}, {"reward": "medal", "ranks": [2, 10]}]
