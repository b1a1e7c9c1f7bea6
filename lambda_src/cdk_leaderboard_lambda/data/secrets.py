"""Secrets Manager: a secret's current value (the key that signs page cursors, the receipt key set), and its current
and previous versions (the token signing key, the game key), for rotation with a grace.

Two implementations of ports.SecretStore, held to the same behaviour by tests/contract: the Secrets Manager one
(what every function uses; its client made on the first read, so a function whose settings name no secret never
makes one) and an in-memory one: a dict of secret id -> versions with their stages, failing as boto3 does for an
unknown id. Both can also create a secret and put a new value (what a rotation does), for tests and tools."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from ..domain.ports import Version

CURRENT, PREVIOUS = "AWSCURRENT", "AWSPREVIOUS"  # the staging labels PutSecretValue moves


def new_client(endpoint_url: str | None = None) -> Any:
    """A Secrets Manager client: AWS's endpoint, or a stand-in's (settings.secrets_manager_endpoint, local only)."""
    return boto3.client(
        "secretsmanager", endpoint_url=endpoint_url, config=Config(retries={"mode": "standard", "max_attempts": 3})
    )


class SecretsManagerSecrets:
    """The secrets in Secrets Manager, through the client `make_client` gives on first use (then kept)."""

    def __init__(self, make_client: Callable[[], Any]) -> None:
        self._make_client = make_client
        self._client: Any = None
        self._lock = threading.Lock()
        # A version's value never changes: the values of the versions last listed, by (secret id, version id), so
        # that reading a ring again costs one list call when nothing rotated (api_key_classes.py reads every 10 s).
        self._values: dict[tuple[str, str], str] = {}

    def _sm(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = self._make_client()
            return self._client

    def value(self, secret_id: str) -> str:
        """The current value of a secret (its AWSCURRENT SecretString): one GetSecretValue."""
        return self._sm().get_secret_value(SecretId=secret_id)["SecretString"]

    def current_and_previous(self, secret_id: str) -> tuple[Version, Version | None]:
        """The AWSCURRENT version and the AWSPREVIOUS one (None before the first rotation): PutSecretValue with a
        new value makes it current and labels the one it replaces previous. One list call, and one read a version
        not read before."""
        client = self._sm()
        listed = client.list_secret_version_ids(SecretId=secret_id)["Versions"]
        found: dict[str, Version] = {}
        for stage in (CURRENT, PREVIOUS):
            listing = next((v for v in listed if stage in v.get("VersionStages", ())), None)
            if listing is not None:
                version_id = listing["VersionId"]
                value = self._values.get((secret_id, version_id))
                if value is None:
                    value = client.get_secret_value(SecretId=secret_id, VersionId=version_id)["SecretString"]
                found[stage] = Version(version_id, value, listing["CreatedDate"].timestamp())
        with self._lock:  # only the versions listed now: bounded by two a secret
            for key in [k for k in self._values if k[0] == secret_id]:
                del self._values[key]
            self._values |= {(secret_id, v.version_id): v.value for v in found.values()}
        if CURRENT not in found:
            raise RuntimeError(f"secret {secret_id} has no {CURRENT} version")
        return found[CURRENT], found.get(PREVIOUS)

    def create(self, secret_id: str, value: str) -> str:
        """A new secret named `secret_id` holding `value` (CreateSecret); its version id."""
        return self._sm().create_secret(Name=secret_id, SecretString=value)["VersionId"]

    def put_value(self, secret_id: str, value: str) -> str:
        """A rotation (PutSecretValue): `value` becomes current, the current one previous; its version id."""
        return self._sm().put_secret_value(SecretId=secret_id, SecretString=value)["VersionId"]


def _error(code: str, message: str, operation: str) -> ClientError:
    """The error boto3 raises (its ResourceNotFoundException and ResourceExistsException are ClientErrors)."""
    return ClientError({"Error": {"Code": code, "Message": message}}, operation)


@dataclass
class _Version:
    version_id: str
    value: str
    created_at: float
    stages: set[str] = field(default_factory=set)


class MemorySecrets:
    """The same secrets in a dict of this instance: secret id (as given: a name or an ARN, not both) -> versions."""

    def __init__(self, secrets: dict[str, str] | None = None, clock: Callable[[], float] = time.time) -> None:
        self._secrets: dict[str, list[_Version]] = {}
        self._clock = clock
        self._lock = threading.Lock()
        for secret_id, value in (secrets or {}).items():
            self.create(secret_id, value)

    def _versions(self, secret_id: str, operation: str) -> list[_Version]:
        if secret_id not in self._secrets:
            raise _error("ResourceNotFoundException", "Secrets Manager can't find the specified secret.", operation)
        return self._secrets[secret_id]

    def _staged(self, secret_id: str, stage: str, operation: str) -> _Version | None:
        return next((v for v in self._versions(secret_id, operation) if stage in v.stages), None)

    def value(self, secret_id: str) -> str:
        with self._lock:
            current = self._staged(secret_id, CURRENT, "GetSecretValue")
            assert current is not None  # every secret has one from its creation
            return current.value

    def current_and_previous(self, secret_id: str) -> tuple[Version, Version | None]:
        with self._lock:
            current = self._staged(secret_id, CURRENT, "ListSecretVersionIds")
            previous = self._staged(secret_id, PREVIOUS, "ListSecretVersionIds")
        assert current is not None
        as_version = lambda v: Version(v.version_id, v.value, v.created_at)  # noqa: E731
        return as_version(current), None if previous is None else as_version(previous)

    def create(self, secret_id: str, value: str) -> str:
        with self._lock:
            if secret_id in self._secrets:
                message = f"The operation failed because the secret {secret_id} already exists."
                raise _error("ResourceExistsException", message, "CreateSecret")
            version = _Version(str(uuid.uuid4()), value, self._clock(), {CURRENT})
            self._secrets[secret_id] = [version]
            return version.version_id

    def put_value(self, secret_id: str, value: str) -> str:
        with self._lock:
            versions = self._versions(secret_id, "PutSecretValue")
            for version in versions:
                version.stages.discard(PREVIOUS)  # the one before the previous keeps no label
                if CURRENT in version.stages:
                    version.stages = (version.stages - {CURRENT}) | {PREVIOUS}
            new = _Version(str(uuid.uuid4()), value, self._clock(), {CURRENT})
            versions.append(new)
            return new.version_id
