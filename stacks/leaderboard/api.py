"""The construct `Api`: the functions on one hand-written role, the REST API built from the route table, its two
keys and the WAF, each part in its own module, handed what it needs:

- functions.py: `Functions` (the shared role, the Powertools layer, every function of the registry)
- api_keys.py: `Secrets` (signing keys, the API keys' values) and `ApiKeys` (keys, usage plans)
- rest_api.py: `RestApi` (the imported OpenAPI document, the stage, the account's logging role)
- waf.py: `Waf` (the per-client rate limit)

The parts build into this one construct's scope rather than each being a construct: the logical ids of the
secrets and log groups (and of everything else) stay those that deployments have.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from aws_cdk import Names
from constructs import Construct

from . import function_access
from .api_keys import ApiKeys, Secrets
from .functions import POWERTOOLS_LAYER_PARAMETER, POWERTOOLS_VERSION, Functions
from .paths import schema
from .props import LeaderboardProps
from .rest_api import API_GATEWAY_LOGGING_ACTIONS, CORS_HEADERS, RestApi, lambda_invocation_uri
from .tables import LeaderboardTables
from .waf import Waf

# Importable from here as before (ops/preflight.py, tests).
__all__ = [
    "API_GATEWAY_LOGGING_ACTIONS",
    "CORS_HEADERS",
    "POWERTOOLS_LAYER_PARAMETER",
    "POWERTOOLS_VERSION",
    "LeaderboardApi",
    "lambda_invocation_uri",
]


class LeaderboardApi(Construct):
    """Attributes: `functions` (by name), `role` and `role_policy` (through `functions_part.allow`), the four
    secrets, `rest_api`, `usage_plans` (by access class), `web_acl` and `api_gateway_account` (None where off)."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        props: LeaderboardProps,
        tables: LeaderboardTables,
        cors_origins: Sequence[str],
    ) -> None:
        super().__init__(scope, id)
        # Physical names unique per stack and construct path: two leaderboards in one stack, or two stages in one
        # account, never share a name (nor the metrics keyed by it, such as API Gateway's ApiName).
        self.unique_name = Names.unique_resource_name(
            self, max_length=100, separator="-", allowed_special_characters="-"
        )
        secrets = Secrets(self, props=props)
        self.cursor_secret = secrets.cursor_secret
        self.digest_secret = secrets.digest_secret
        self.token_secret = secrets.token_secret
        self.game_key_secret = secrets.game_key_secret
        self.receipt_secret = secrets.receipt_secret
        self.admin_key_secret = secrets.admin_key_secret
        environment = {
            "SCORES_TABLE": tables.scores.table_name,
            "SNAPSHOTS_TABLE": tables.snapshots.table_name,
            "RANK_INDEX": schema.RANK_INDEX,
            "CORS_ALLOWED_ORIGINS": ",".join(cors_origins),
            "ENABLE_SIMULATOR": str(props.simulator_enabled).lower(),
            "PERIOD_RETENTION_DAYS": str(props.period_retention_days),
            "ARCHIVE_RETENTION_DAYS": str(props.archive_retention_days),
            "DECLARED_BOARDS": json.dumps([board.as_body() for board in props.boards], separators=(",", ":")),
            "MAX_BOARDS": str(props.max_boards),
            # Outside production the cursor keys derive from the token secret's versions (cursors.py), and the
            # receipt key from the digest key (Secrets: a secret each would take dev past its idle budget).
            "CURSOR_SECRET_ARN": (secrets.cursor_secret or secrets.token_secret).secret_arn,
            "DIGEST_KEY_SECRET_ARN": secrets.digest_key_id,  # an adopted secret's name, if given by name
            "TOKEN_SIGNING_SECRET_ARN": secrets.token_secret.secret_arn,
            "RECEIPT_SIGNING_SECRET_ARN": (
                secrets.receipt_secret.secret_arn if secrets.receipt_secret else secrets.digest_key_id
            ),
            "TOKEN_ISSUER": self.unique_name,  # a token of another deployment is refused even if keys were shared
        }
        self.functions_part = Functions(
            self,
            props=props,
            tables=tables,
            environment=environment,
            secrets=secrets,
        )
        # Each key class's value (current and previous), which tells the classes apart on keyed routes: ids change at
        # every rotation. Only to the functions that serve that class's routes, which alone may read it
        # (function_access.py): a function told of the other class's secret would read it to tell that key apart
        # (api_key_classes.KeyClasses.is_of).
        self.functions_part.add_environment(
            {"GAME_KEY_SECRET_ARN": secrets.game_key_secret.secret_arn}, sorted(function_access.GAME_KEY_USERS)
        )
        self.functions_part.add_environment(
            {"ADMIN_KEY_SECRET_ARN": secrets.admin_key_secret.secret_arn}, sorted(function_access.ADMIN_KEY_USERS)
        )
        self.functions = self.functions_part.by_name
        self.role = self.functions_part.role
        self.role_policy = self.functions_part.role_policy
        rest_api = RestApi(
            self, props=props, functions=self.functions, cors_origins=cors_origins, api_name=self.unique_name
        )
        self.rest_api = rest_api.api
        # No traffic before the functions' scoped grants exist (on a first deploy; functions.py).
        rest_api.stage.node.add_dependency(self.functions_part.scoped_policy)
        self.api_gateway_account = rest_api.api_gateway_account
        waf = Waf(self, props=props, stage=rest_api.stage, metric_prefix=self.unique_name)
        self.web_acl = waf.web_acl
        self.edge_proof_secret = waf.edge_secret  # the edge sends its value (edge.py)
        keys = ApiKeys(self.rest_api, props=props, secrets=secrets)
        self.usage_plans = keys.usage_plans
