"""Rotating a signing key breaks nothing that is stored, against the local stack: the functions read their
keys from a Secrets Manager stand-in that speaks AWS's protocol (moto's server, `settings.secrets_manager_endpoint`)
as a deployment's functions read them, and each key is rotated with the ops command's own function against it.

Before a rotation: entries, a quarantined score (a pending item naming the player and a pointer to it), a run, rate
counters, log commitments; a page walk begun. After it (a fresh runtime: what an instance's next read of the ring
or a cold start gives): the walk goes on with the cursor signed before, a resubmission keeps its player's one
commitment (the receipt counts each player once) and rate-counter partition, the run begun before takes its score,
an erasure finds and removes every item of the player (their id is nowhere, their commitment key is gone), and the
verifier, run as a user runs it, accepts a receipt against the log.

- cursor: production's CursorSigningSecret (`rotate-cursor-key --stage prod`). This secret was once also the key
  of the hashed partitions: a new value moved all of them (the same steps failed there).
- token: the token signing secret (`rotate-token-key --stage dev`), from which, outside production, the cursor keys
  derive too.
The digest key is never rotated (its command refuses: tests/ops/test_cursor_key_rotation.py)."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from ops.__main__ import main
from tests.integration.conftest import api_of, local_stack
from tests.integration.test_receipt_key_rotation import logged, operator_session, receipt_of
from tests.support import jws
from tests.support.erasure import erase
from tests.support.player_tokens import bearer

RULES = {"max_score": {"value": 1000, "action": "quarantine"}}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """A stack of this file's own, its clock still the real one. A rotated key's grace runs from its new version's
    CreatedDate, which the Secrets Manager stand-in dates by the real clock (on AWS, its clock and the functions'
    agree), while the functions judge it by the stack's; on the package's shared stack, the other files' moves add
    up (an erasure's fences alone move it 35 s), and past the cursor key's 20 minutes its grace had ended."""
    with local_stack(tmp_path_factory) as backend:
        yield backend


@pytest.fixture(scope="module")
def api(stack):
    with api_of(stack) as client:
        yield client


@pytest.fixture(scope="module")
def standin(stack):
    """The local stack's AWS stand-in (moto's server, local/keys.py): Secrets Manager and CloudFormation over HTTP, as
    AWS answers them. The functions read every secret from one endpoint, the API keys' too, so the rotated secrets
    live beside them."""
    return stack.keys.endpoint


def deployed(session, stage: str, **secret_names: str) -> dict[str, str]:
    """The stage's secrets as the stack generates them (64 random characters) and the outputs the ops command reads;
    their ARNs by name."""
    client = session.client("secretsmanager")
    arns = {
        name: client.create_secret(Name=f"{stage}-{name}", SecretString=secrets.token_hex(32))["ARN"]
        for name in secret_names
    }
    template = {
        "Resources": {
            "Marker": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": f"/{stage}", "Type": "String", "Value": "x"},
            }
        },
        "Outputs": {output: {"Value": arns[name]} for name, output in secret_names.items() if output},
    }
    cloudformation = session.client("cloudformation")
    cloudformation.delete_stack(StackName=f"leaderboard-{stage}")  # another test's stage on the same stand-in
    cloudformation.create_stack(StackName=f"leaderboard-{stage}", TemplateBody=json.dumps(template))
    return arns


def keyed_partitions(stack, prefix: str, holding: str | None = None) -> set[str]:
    """The scores table's partition keys that start with `prefix` (a kind of hashed item: item_keys.py), of items that
    hold the attribute `holding` if given."""
    found: set[str] = set()
    for spec in stack.specs:
        for page in stack.ddb.get_paginator("scan").paginate(TableName=spec.local_name, ConsistentRead=True):
            found |= {
                v["S"]
                for i in page["Items"]
                if (v := i.get("player_id")) and v["S"].startswith(prefix) and (holding is None or holding in i)
            }
    return found


def rate_partitions(stack, board: str) -> set[str]:
    """The partitions of the players' submission counters on `board` (sort key "<board>#<minute>")."""
    found: set[str] = set()
    for page in stack.ddb.get_paginator("scan").paginate(TableName=stack.table_name("player_id"), ConsistentRead=True):
        found |= {
            i["player_id"]["S"]
            for i in page["Items"]
            if i["player_id"]["S"].startswith("#rate#") and i["leaderboard_id"]["S"].startswith(f"{board}#")
        }
    return found


def commitment_keys(stack) -> set[str]:
    """The players' commitment keys (data/chain.py): an erasure leaves a keyless item in its place for a while."""
    return keyed_partitions(stack, "#logkey#", holding="key")


def items_naming(stack, text: str) -> list[dict]:
    found = []
    for spec in stack.specs:
        for page in stack.ddb.get_paginator("scan").paginate(TableName=spec.local_name, ConsistentRead=True):
            found += [i for i in page["Items"] if text in json.dumps(i)]
    return found


def verify(*args: str, cwd: Path) -> tuple[int, list[str]]:
    """`python -m leaderboard_verify ARGS`, as a user runs it: its exit status and its lines."""
    result = subprocess.run(
        [sys.executable, "-m", "leaderboard_verify", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout.splitlines()


# What each rotation is: the stage, its secrets (name -> stack output), the functions' settings, the command.
ROTATIONS = {
    "cursor": (
        "prod",
        {"cursor": "CursorSigningSecretArn", "digest": None},
        lambda arns: {"cursor_secret_arn": arns["cursor"], "digest_key_secret_arn": arns["digest"]},
        ["rotate-cursor-key", "--stage", "prod"],
    ),
    "token": (
        "dev",
        {"token": "TokenSigningSecretArn", "digest": None},
        lambda arns: {
            "cursor_secret_arn": arns["token"],  # outside production the cursor keys derive from the token secret
            "token_signing_key": None,
            "token_signing_secret_arn": arns["token"],
            "digest_key_secret_arn": arns["digest"],
        },
        ["rotate-token-key", "--stage", "dev"],
    ),
}


@pytest.mark.parametrize("which", sorted(ROTATIONS))
def test_a_rotation_leaves_every_players_items_and_the_log_working(which, stack, api, standin, tmp_path):
    stage, names, settings_of, command = ROTATIONS[which]
    session = operator_session(standin, tmp_path)
    arns = deployed(session, stage, **names)
    board, client_board = f"sr-{which}", f"sr-{which}-client"
    victim, players = f"sr-{which}-victim", [f"sr-{which}-{n}" for n in range(5)]
    settings = {"cursor_secret": None, "digest_key": None, "secrets_manager_endpoint": standin, **settings_of(arns)}
    with stack.reconfigured(**settings):
        body = {"board_id": board, "periods": ["all-time"], "rules": RULES, "max_submissions_per_minute": 10}
        assert api.post("/leaderboards", body).status_code == 201
        body = {"board_id": client_board, "periods": ["all-time"], "submissions": "client"}
        assert api.post("/leaderboards", body).status_code == 201
        for n, player in enumerate([victim, *players]):
            reply = api.post(f"/leaderboards/{board}/scores", {"player_id": player, "score": 100 + 10 * n})
            assert reply.status_code == 200, reply.text
        held = api.post(f"/leaderboards/{board}/scores", {"player_id": victim, "score": 5000})
        assert held.status_code == 202, held.text  # a pending item names the victim; a keyed pointer finds it
        player_token = api.post(f"/players/{victim}/tokens", {}).json()["token"]
        run = api.post(f"/leaderboards/{client_board}/runs", key=None, headers=bearer(player_token))
        assert run.status_code == 201, run.text
        stack.settle()
        logged(api, "all-time", 1 + len(players), board=board)
        first = api.get(f"/leaderboards/{board}/top", params={"period": "all-time", "limit": "2"})
        assert first.status_code == 200, first.text
        cursor = first.json()["next_cursor"]
        rate_before = rate_partitions(stack, board)
        assert len(rate_before) == 1 + len(players)  # one per player on the board with a limit
        logkeys_before = commitment_keys(stack)
        assert len(logkeys_before) >= 1 + len(players)

        assert main(command, session=session) == 0
        with stack.reconfigured():  # the instances read their keys again (on AWS within REFRESH_SECONDS)
            second = api.get(
                f"/leaderboards/{board}/top", params={"period": "all-time", "limit": "2", "cursor": cursor}
            )
            assert second.status_code == 200, second.text  # the walk begun before the rotation goes on
            assert [e["rank"] for e in second.json()["entries"]] == [3, 4]
            again = api.post(f"/leaderboards/{board}/scores", {"player_id": players[0], "score": 99})
            assert again.status_code == 200, again.text
            better = api.post(f"/leaderboards/{board}/scores", {"player_id": players[0], "score": 999})
            assert better.status_code == 200, better.text
            played = api.post(
                f"/leaderboards/{client_board}/runs/{run.json()['run_id']}/score",
                {"player_id": victim, "score": 7},
                key=None,
                headers=bearer(run.json()["run_token"]),
            )
            assert played.status_code == 200, played.text  # the run begun before is found under its player
            stack.settle()
            logged(api, "all-time", 2 + len(players), board=board)
            assert rate_partitions(stack, board) == rate_before  # the same players' counters, not new ones
            receipt = receipt_of(api, players[0], "all-time", board=board)
            claims = jws.header_and_payload(receipt)[1]
            assert claims["total_players"] == 1 + len(players), claims  # one commitment per player

            erase(api, victim, stack)
            stack.settle()
            assert items_naming(stack, victim) == []  # the pending score too: its keyed pointer was found
            assert len(commitment_keys(stack)) == len(logkeys_before) - 1  # theirs is gone, the others' kept
            assert api.get(f"/leaderboards/{board}/pending", key="default").json()["pending"] == []

            (tmp_path / "receipt.jws").write_text(receipt_of(api, players[0], "all-time", board=board))
            status, lines = verify("--url", stack.api_url, "--receipt", "receipt.jws", cwd=tmp_path)
            assert status == 0 and lines[-1].startswith("VERIFIED: "), lines
