"""Construct ids from the route table's kebab-case names: "score-submit" -> "ScoreSubmit"."""

from __future__ import annotations


def pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))
