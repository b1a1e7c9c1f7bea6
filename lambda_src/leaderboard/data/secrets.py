"""Secrets Manager: the value of a secret (the key that signs page cursors), read once per cold start by its caller;
and a secret's current and previous versions (the token signing key, the game key), for rotation with a grace.
The client is the runtime's (composition.py), given by the caller."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import boto3
from botocore.config import Config

CURRENT, PREVIOUS = "AWSCURRENT", "AWSPREVIOUS"  # the staging labels PutSecretValue moves


@dataclass(frozen=True)
class Version:
    version_id: str
    value: str
    created_at: float  # epoch seconds: when this version was put (a rotation's time, for the current one)


def new_client(endpoint_url: str | None = None) -> Any:
    """A Secrets Manager client: AWS's endpoint, or a stand-in's (settings.secrets_manager_endpoint, local only)."""
    return boto3.client(
        "secretsmanager", endpoint_url=endpoint_url, config=Config(retries={"mode": "standard", "max_attempts": 3})
    )


def secret_string(client: Any, secret_arn: str) -> str:
    """The current value of a Secrets Manager secret (its SecretString)."""
    return client.get_secret_value(SecretId=secret_arn)["SecretString"]


def current_and_previous(client: Any, secret_arn: str) -> tuple[Version, Version | None]:
    """The AWSCURRENT version and the AWSPREVIOUS one (None before the first rotation): PutSecretValue with a new
    value makes it current and labels the one it replaces previous. One list call and one read per version."""
    listed = client.list_secret_version_ids(SecretId=secret_arn)["Versions"]
    found: dict[str, Version] = {}
    for stage in (CURRENT, PREVIOUS):
        listing = next((v for v in listed if stage in v.get("VersionStages", ())), None)
        if listing is not None:
            value = client.get_secret_value(SecretId=secret_arn, VersionId=listing["VersionId"])["SecretString"]
            found[stage] = Version(listing["VersionId"], value, listing["CreatedDate"].timestamp())
    if CURRENT not in found:
        raise RuntimeError(f"secret {secret_arn} has no {CURRENT} version")
    return found[CURRENT], found.get(PREVIOUS)
