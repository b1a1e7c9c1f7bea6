"""A deployed stage's stack outputs (stable logical ids, see stacks/leaderboard_stack.py)."""

from __future__ import annotations

import boto3
from botocore.exceptions import ClientError


class StackNotReady(Exception):
    """The stage is not deployed, or was deployed by a version without the outputs ops needs."""


def stack_outputs(session: boto3.Session, stack: str) -> dict[str, str]:
    try:
        (described,) = session.client("cloudformation").describe_stacks(StackName=stack)["Stacks"]
    except ClientError as err:
        if "does not exist" in str(err):
            raise StackNotReady(f"stack {stack} does not exist in {session.region_name}: deploy it first") from err
        raise
    return {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}


def require(outputs: dict[str, str], *names: str) -> list[str]:
    missing = [n for n in names if n not in outputs]
    if missing:
        raise StackNotReady(f"the stack has no output {', '.join(missing)}: deploy the current version first")
    return [outputs[n] for n in names]
