"""The secrets (ports.SecretStore): the same cases on Secrets Manager and in memory (conftest.py).

DynamoDB Local has no Secrets Manager: on the "dynamodb" side of the contract the real implementation
(SecretsManagerSecrets, the boto3 calls every function makes) runs on moto's Secrets Manager instead, in process."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from cdk_leaderboard_lambda.data.secrets import MemorySecrets, SecretsManagerSecrets
from cdk_leaderboard_lambda.domain import keyring
from cdk_leaderboard_lambda.domain.ports import SecretStore
from local import moto_fidelity


@pytest.fixture
def store(runtime) -> Iterator[SecretStore]:
    if isinstance(runtime.secrets, MemorySecrets):
        yield runtime.secrets
        return
    assert isinstance(runtime.secrets, SecretsManagerSecrets)
    moto_fidelity.install()  # each version's CreatedDate, as AWS lists it (not the time of the call)
    with mock_aws():
        client = boto3.client("secretsmanager", region_name="us-east-1")
        yield SecretsManagerSecrets(lambda: client)


def code(err: pytest.ExceptionInfo[ClientError]) -> str:
    return err.value.response["Error"]["Code"]


def test_a_secret_reads_its_current_value_and_has_no_previous_before_a_rotation(store):
    version = store.create("cursor-key", "first-value-0123456789")
    assert store.value("cursor-key") == "first-value-0123456789"
    current, previous = store.current_and_previous("cursor-key")
    assert (current.version_id, current.value, previous) == (version, "first-value-0123456789", None)


def test_a_rotation_makes_the_new_value_current_and_the_replaced_one_previous(store):
    first = store.create("token-key", "one")
    second = store.put_value("token-key", "two")
    assert store.value("token-key") == "two"
    current, previous = store.current_and_previous("token-key")
    assert previous is not None
    assert (current.version_id, current.value, previous.version_id, previous.value) == (second, "two", first, "one")
    assert previous.created_at <= current.created_at  # the grace of the previous key runs from the rotation
    third = store.put_value("token-key", "three")  # a second rotation: the first version keeps no label
    current, previous = store.current_and_previous("token-key")
    assert previous is not None
    assert (current.version_id, current.value, previous.version_id, previous.value) == (third, "three", second, "two")
    assert len({first, second, third}) == 3


def test_secrets_are_kept_apart(store):
    store.create("a", "value-a")
    store.create("b", "value-b")
    store.put_value("b", "value-b2")
    assert (store.value("a"), store.value("b")) == ("value-a", "value-b2")
    assert store.current_and_previous("a")[1] is None


def test_an_unknown_secret_fails_as_boto3_does(store):
    with pytest.raises(ClientError) as err:
        store.value("no-such-secret")
    assert code(err) == "ResourceNotFoundException"
    with pytest.raises(ClientError) as err:
        store.put_value("no-such-secret", "x")
    assert code(err) == "ResourceNotFoundException"


def test_the_versions_of_an_unknown_secret_fail_as_boto3_does(store):
    try:
        store.current_and_previous("no-such-secret")
    except KeyError:  # moto's, not ours: Secrets Manager answers ListSecretVersionIds with ResourceNotFoundException
        pytest.xfail("moto 5.2's ListSecretVersionIds raises KeyError for an unknown secret id")
    except ClientError as err:
        assert err.response["Error"]["Code"] == "ResourceNotFoundException"
    else:
        pytest.fail("the versions of an unknown secret were read")


def test_a_secret_is_created_once(store):
    store.create("game-key", "first")
    with pytest.raises(ClientError) as err:
        store.create("game-key", "again")
    assert code(err) == "ResourceExistsException"
    assert store.value("game-key") == "first"


def test_the_key_rings_read_through_the_store(store):
    """What the token and game keys are made of (keyring.ring_from_secret): current signs, previous has its grace."""
    store.create("ring", "k1")
    assert keyring.ring_from_secret(store, "ring", 60).previous is None
    store.put_value("ring", "k2")
    ring = keyring.ring_from_secret(store, "ring", 60)
    current, previous = store.current_and_previous("ring")
    assert ring.current == keyring.Key(current.version_id, "k2")
    assert ring.previous == keyring.Key(previous.version_id, "k1", current.created_at + 60)


def test_a_versions_created_date_is_when_it_was_put_not_when_it_is_listed(store, monkeypatch):
    """What a key ring's grace is counted from (AWS: each version's CreatedDate); moto gave the listing's time."""
    store.create("dated", "v1")
    store.put_value("dated", "v2")
    first = store.current_and_previous("dated")
    if isinstance(store, SecretsManagerSecrets):
        import moto.secretsmanager.models as models

        later = models.time.time() + 5
        monkeypatch.setattr(models.time, "time", lambda: later)
    assert store.current_and_previous("dated") == first
