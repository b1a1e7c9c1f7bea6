"""Where moto answers unlike AWS in a way this project depends on, made to answer as AWS does: installed in the local
stack's moto server (`python -m local.moto_fidelity`, local/keys.py) and in the tests that run moto in process.

- Secrets Manager's ListSecretVersionIds: AWS gives each version's CreatedDate (when it was put); moto 5 gives the
  time of the call, so a key ring's grace (keyring.ring_from_secret: the current version's CreatedDate + grace)
  would slide forward at every read and never end.
"""

from __future__ import annotations

import json
import sys

from moto.secretsmanager.models import SecretsManagerBackend


def _list_secret_version_ids(self: SecretsManagerBackend, secret_id: str) -> str:
    secret = self.secrets[secret_id]
    versions = [
        {
            "CreatedDate": version["createdate"],
            "LastAccessedDate": version["createdate"],
            "VersionId": version_id,
            "VersionStages": version["version_stages"],
        }
        for version_id, version in secret.versions.items()
    ]
    return json.dumps({"ARN": secret.secret_id, "Name": secret.name, "NextToken": "", "Versions": versions})


def install() -> None:
    SecretsManagerBackend.list_secret_version_ids = _list_secret_version_ids  # type: ignore[method-assign]


if __name__ == "__main__":  # moto's server, with the fixes above
    from moto import server

    install()
    server.main(sys.argv[1:])
