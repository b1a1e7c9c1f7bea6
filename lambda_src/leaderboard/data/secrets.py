"""Secrets Manager: the value of a secret (the key that signs page cursors), read once per cold start by its caller."""

from __future__ import annotations

import boto3
from botocore.config import Config


def secret_string(secret_arn: str) -> str:
    """The current value of a Secrets Manager secret (its SecretString)."""
    client = boto3.client("secretsmanager", config=Config(retries={"mode": "standard", "max_attempts": 3}))
    return client.get_secret_value(SecretId=secret_arn)["SecretString"]
