"""A JSON snapshot of the whole template: any change to the infrastructure shows up in review.

Asset hashes are masked so the snapshot is the same on every machine; update it
deliberately with `make snapshot-update` after an intended change.
"""

from __future__ import annotations

import json
import re

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

_ASSET_HASH = re.compile(r"[0-9a-f]{64}")
# user_data_causes_replacement appends a hash of the user data (which names the site asset) to the instance's id.
_USER_DATA_HASH = re.compile(r"(Instance[0-9A-F]{8})[0-9a-f]{16}")
# The VPC origin's logical id and name end with a hash of what replaces the instance (dashboard.py), user data included.
_VPC_ORIGIN_HASH = re.compile(r"(VpcOrigin[0-9A-F]{8})[0-9a-f]{16}")
_VPC_ORIGIN_NAME_HASH = re.compile(r"(Address-[0-9A-F]{8}-)[0-9a-f]{12}")


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


def _masked(template: dict) -> dict:
    text = _ASSET_HASH.sub("<asset-hash>", json.dumps(template))
    text = _USER_DATA_HASH.sub(r"\1<user-data-hash>", text)
    text = _VPC_ORIGIN_NAME_HASH.sub(r"\1<instance-hash>", _VPC_ORIGIN_HASH.sub(r"\1<instance-hash>", text))
    return json.loads(text)


def test_dev_template_matches_snapshot(dev_template_json, snapshot_json):
    assert _masked(dev_template_json) == snapshot_json


def test_prod_template_matches_snapshot(prod_template_json, snapshot_json):
    assert _masked(prod_template_json) == snapshot_json
