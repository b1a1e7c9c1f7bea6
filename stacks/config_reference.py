"""Renders docs/CONFIGURATION.md, the configuration reference, from the props' own docstrings.

    python -m stacks.config_reference           # write the page (make docs-config)
    python -m stacks.config_reference --check   # exit 1 when the page is out of step

Each field's text is the docstring under it in stacks/leaderboard/props.py and props_groups.py, its default the
dataclass's own; tests/infra/test_configuration_reference.py fails when the page and the code differ.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
from pathlib import Path
from typing import Any

from cdk_leaderboard import props, props_groups

PAGE = Path(__file__).resolve().parents[1] / "docs" / "CONFIGURATION.md"
PLAIN = (bool, int, float, str, type(None), tuple, list, dict)

INTRO = """# Configuration reference

Every setting of the `Leaderboard` construct, with its default: `Leaderboard(self, "Leaderboard")` alone deploys a
complete non-production leaderboard. Settings are keyword arguments (the fields of `LeaderboardProps`) or one
`props=LeaderboardProps(...)`; related ones come in groups:

```python
from cdk_leaderboard import Board, Leaderboard, Monitoring, Throttles

Leaderboard(
    self,
    "Leaderboard",
    production=True,
    boards=[Board(board_id="speedrun", order="asc")],
    throttles=Throttles(game_key_rate_limit=1000, game_key_burst_limit=2000),
    monitoring=Monitoring(alarm_email="ops@example.com"),
)
```

Bring your own: `existing_vpc`, `existing_scores_table`, `existing_snapshots_table` and `existing_event_bus` take
a resource of your app (made there or imported) instead of one of the stack's own; it is used as it is, nothing is
made for it or changed on it, and the functions' role gets the same statements on its ARNs. What each must have is
in its row below; they cannot come from cdk.json. `existing_digest_key_secret` adopts a secret by its ARN or name, a
string, so it can.

In cdk.json's `stages.<stage>` context block the same names take JSON values, a group as an object:
`{"production": true, "throttles": {"game_key_rate_limit": 1000}}`.

This page is generated from the docstrings in `stacks/leaderboard/props.py` and `stacks/leaderboard/props_groups.py`
by `make docs-config`; a test fails when it is out of step. Edit the docstrings, not this page.
"""

ATTRIBUTES = """## Attributes, grants and metrics

Attributes: `api` (a `SpecRestApi`: the route table's routes are its imported OpenAPI document), `live_api` (the
AppSync `EventApi` of live updates), `live_url` (its `wss://.../event/realtime` URL; both `None` with
`Live(enabled=False)`), `scores_table`, `snapshots_table`, `functions` (by name, e.g. `score-submit`), `role` (the
functions' one role), `game_key_secret`, `admin_key_secret`, `dashboard`, `vpc`, `alarm_topic`,
`operations_dashboard` (`None` where turned off).

Grants (exact actions, the rank index by name): `grant_read_scores`, `grant_read_snapshots`, `grant_stream_read`
(the API itself is keyed by API keys, not IAM). A DynamoDB stream takes at most two readers per shard (more may be
throttled, AWS says), and the scores table's stream has two already, the rank counters and live updates (one with
live off): a third reader, through `grant_stream_read` or on the stream of an `existing_scores_table`, may be
throttled with them; give further consumers a Kinesis data stream of the table instead (on the stack's own table
through `table_overrides`).

Metrics: `metric_api_requests/server_errors/client_errors/latency`,
`metric_function_errors/invocations/throttles/duration(name)`.
"""


def _field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a dataclass (the string statement right after its annotation)."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for statement, following in zip(body, body[1:], strict=False):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = inspect.cleandoc(following.value.value)
    return docs


def _default_sources(cls: type) -> dict[str, str]:
    tree = ast.parse(inspect.getsource(cls))
    return {
        s.target.id: ast.unparse(s.value)
        for s in tree.body[0].body  # type: ignore[attr-defined]
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None
    }


def _default(cls: type, f: dataclasses.Field[Any]) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return "(required)"
    if isinstance(value, PLAIN):
        return f"`{value!r}`"
    return f"`{_default_sources(cls)[f.name]}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _table(cls: type) -> list[str]:
    docs = _field_docs(cls)
    lines = ["| Setting | Type | Default | What it does |", "| --- | --- | --- | --- |"]
    for f in dataclasses.fields(cls):
        lines.append(
            f"| `{f.name}` | `{_cell(str(f.type))}` | {_cell(_default(cls, f))} | {_cell(docs.get(f.name, ''))} |"
        )
    return lines


def _section(title: str, cls: type) -> list[str]:
    return [f"## {title}", "", inspect.cleandoc(cls.__doc__ or ""), "", *_table(cls), ""]


def render() -> str:
    lines = [INTRO]
    lines += _section("LeaderboardProps", props.LeaderboardProps)
    groups = {field: cls for field, cls in props_groups.GROUPS.items()}
    for field, cls in groups.items():
        lines += _section(f"{cls.__name__} (`{field}={cls.__name__}(...)`)", cls)
    lines += _section("Board (`boards=[Board(...)]`)", props.Board)
    lines.append(ATTRIBUTES)
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    page = render()
    if argv == ["--check"]:
        if PAGE.read_text() != page:
            print(f"{PAGE} is out of step with the props: run `make docs-config`", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
