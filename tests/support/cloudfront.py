"""The template's CloudFront distributions: the dashboard's and the edge's (stacks/leaderboard/edge.py)."""

from __future__ import annotations


def dashboard_only(distributions: dict[str, dict]) -> dict[str, dict]:
    """Of a template's distributions (logical id -> resource), the dashboard's: the edge in front of the API has its
    own (its logical id has no `DashboardAddress`)."""
    return {logical_id: d for logical_id, d in distributions.items() if "DashboardAddress" in logical_id}
