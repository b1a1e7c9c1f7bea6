"""What the local stack takes from the synthesized CDK template.

The template is the one source of the table schema and of the handlers'
settings, so local tables and AWS tables cannot drift. Synth takes 10-30 s, so
the template is cached under .local/templates/, keyed by a hash of what it is built from.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from local import ROOT, STATE_DIR

CACHE_DIR = STATE_DIR / "templates"
TABLE_TYPES = ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable")
LOCAL_ACCOUNT = "000000000000"


def _sources() -> list[Path]:
    # The stack imports the Lambda package's pure-data modules (routes, schema, boards ...) and pins its CDK version.
    files = sorted((ROOT / "stacks").rglob("*.py")) + sorted((ROOT / "lambda_src").rglob("*.py"))
    files += [ROOT / "cdk.json", ROOT / "requirements-dev.txt"]
    return [f for f in files if f.is_file() and "__pycache__" not in f.parts]


def cache_key(stage: str) -> str:
    h = hashlib.sha256(stage.encode())
    for f in _sources():
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def synthesized_template(stage: str = "dev", refresh: bool = False) -> dict:
    """The stack's template, synthesized once per change of its sources."""
    cached = CACHE_DIR / f"leaderboard-{stage}-{cache_key(stage)}.json"
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    # One synth for processes that ask at once (tests/unit's two workers on a fresh clone): the others wait for it
    with open(CACHE_DIR / f".leaderboard-{stage}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if refresh or not cached.is_file():
            _synthesize(stage, cached)
    return json.loads(cached.read_text())


def _synthesize(stage: str, cached: Path) -> None:
    print(
        f"Synthesizing the CDK stack leaderboard-{stage} (once per change of stacks/) ...",
        file=sys.stderr,
        flush=True,
    )
    for old in CACHE_DIR.glob(f"leaderboard-{stage}-*.json"):
        old.unlink(missing_ok=True)  # an older synth's (sources changed since)
    with tempfile.TemporaryDirectory() as outdir:
        env = {
            **os.environ,
            "CDK_OUTDIR": outdir,
            "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
            "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
        }
        tmp = CACHE_DIR / f".{cached.name}.{os.getpid()}.tmp"
        # Output only on failure: jsii prints a Node version banner on every run.
        done = subprocess.run(
            [sys.executable, "-m", "local.synth", str(tmp), stage],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise SystemExit(f"CDK synth failed:\n{done.stdout}{done.stderr}")
        os.replace(tmp, cached)


@dataclass(frozen=True)
class TableSpec:
    """One table of the template, as CreateTable arguments (without the name)."""

    logical_id: str
    create_args: dict
    ttl_attribute: str | None

    @property
    def local_name(self) -> str:
        return self.logical_id  # logical ids are valid, stable table names


def table_specs(template: dict) -> list[TableSpec]:
    specs = []
    for logical_id, res in sorted(template.get("Resources", {}).items()):
        if res.get("Type") not in TABLE_TYPES:
            continue
        props = res.get("Properties", {})
        billing = props.get("BillingMode", "PROVISIONED")
        args = {
            "KeySchema": props["KeySchema"],
            "AttributeDefinitions": props["AttributeDefinitions"],
            "BillingMode": billing,
        }
        if billing == "PROVISIONED":
            args["ProvisionedThroughput"] = props.get(
                "ProvisionedThroughput", {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
            )
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            if props.get(kind):
                args[kind] = [_index(ix, billing, kind) for ix in props[kind]]
        if props.get("StreamSpecification"):
            view = props["StreamSpecification"]["StreamViewType"]
            args["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
        ttl = props.get("TimeToLiveSpecification") or {}
        specs.append(TableSpec(logical_id, args, ttl.get("AttributeName") if ttl.get("Enabled") else None))
    return specs


def _index(ix: dict, billing: str, kind: str) -> dict:
    out = {k: ix[k] for k in ("IndexName", "KeySchema", "Projection")}
    if billing == "PROVISIONED" and kind == "GlobalSecondaryIndexes":
        out["ProvisionedThroughput"] = ix.get(
            "ProvisionedThroughput", {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
        )
    return out


@dataclass(frozen=True)
class StreamConsumer:
    """A Lambda function fed by a table's stream (an AWS::Lambda::EventSourceMapping of the template)."""

    table_logical_id: str
    handler: str  # "module.attr", as routes.FUNCTIONS names it
    batch_size: int
    filter_patterns: tuple[dict, ...]  # Lambda event filter patterns; a record passes if any matches
    retry_attempts: int | None = None  # None: until the records expire


def stream_consumers(template: dict) -> list[StreamConsumer]:
    resources = template.get("Resources", {})
    found = []
    for res in resources.values():
        props = res.get("Properties", {})
        source = props.get("EventSourceArn")
        if res.get("Type") != "AWS::Lambda::EventSourceMapping" or not isinstance(source, dict):
            continue
        table_id, attribute = source.get("Fn::GetAtt", [None, None])
        function = resources.get((props.get("FunctionName") or {}).get("Ref"), {})
        if attribute != "StreamArn" or "Handler" not in function.get("Properties", {}):
            continue
        patterns = tuple(json.loads(f["Pattern"]) for f in (props.get("FilterCriteria") or {}).get("Filters", []))
        found.append(
            StreamConsumer(
                table_id,
                function["Properties"]["Handler"],
                props.get("BatchSize", 100),
                patterns,
                props.get("MaximumRetryAttempts"),
            )
        )
    return found


def scheduled_handlers(template: dict) -> dict[str, str]:
    """The Handler of every Lambda function an EventBridge schedule invokes with the scheduled event, with its
    schedule expression (targets with a payload of their own: scheduled_tasks)."""
    resources = template.get("Resources", {})
    found = {}
    for res in resources.values():
        props = res.get("Properties", {})
        if res.get("Type") != "AWS::Events::Rule" or "ScheduleExpression" not in props:
            continue
        for target in props.get("Targets", []):
            if "Input" in target:
                continue
            function = resources.get((target.get("Arn") or {}).get("Fn::GetAtt", [None])[0], {})
            if "Handler" in function.get("Properties", {}):
                found[function["Properties"]["Handler"]] = props["ScheduleExpression"]
    return found


def scheduled_tasks(template: dict) -> list[tuple[str, dict]]:
    """(Handler, payload) of every schedule target with an Input of its own: the live key's renewal, which runs the
    period closer with {"task": "renew-live-key"}."""
    resources = template.get("Resources", {})
    found = []
    for res in resources.values():
        props = res.get("Properties", {})
        if res.get("Type") != "AWS::Events::Rule" or "ScheduleExpression" not in props:
            continue
        for target in props.get("Targets", []):
            function = resources.get((target.get("Arn") or {}).get("Fn::GetAtt", [None])[0], {})
            if "Input" in target and "Handler" in function.get("Properties", {}):
                found.append((function["Properties"]["Handler"], json.loads(target["Input"])))
    return found


def live_authorizer(template: dict) -> tuple[str, int, str | None] | None:
    """(Handler, AuthorizerResultTtlInSeconds, IdentityValidationExpression) of the Event API's Lambda authorizer,
    or None without one (live off, or an Event API that admits subscribers by API key)."""
    resources = template.get("Resources", {})
    for res in resources.values():
        if res.get("Type") != "AWS::AppSync::Api":
            continue
        for provider in res["Properties"].get("EventConfig", {}).get("AuthProviders", []):
            config = provider.get("LambdaAuthorizerConfig")
            if provider.get("AuthType") == "AWS_LAMBDA" and config:
                function = resources[config["AuthorizerUri"]["Fn::GetAtt"][0]]
                return (
                    function["Properties"]["Handler"],
                    int(config.get("AuthorizerResultTtlInSeconds", 0)),
                    config.get("IdentityValidationExpression"),
                )
    return None


def lambda_handlers(template: dict) -> set[str]:
    """The Handler of every Lambda function in the template."""
    return {
        r["Properties"]["Handler"]
        for r in template.get("Resources", {}).values()
        if r.get("Type") == "AWS::Lambda::Function" and "Handler" in r.get("Properties", {})
    }


# Values with no local counterpart in the template (secrets' ARNs, key ids, the Event API's endpoints and key): the
# local stack hands them itself (dynamodb_local.handler_env, Backend._handler_env).
GIVEN_LOCALLY = frozenset(
    {
        "CURSOR_SECRET_ARN",
        "DIGEST_KEY_SECRET_ARN",
        "ADMIN_KEY_SECRET_ARN",
        "LIVE_EVENTS_HTTP_URL",
        "LIVE_EVENTS_REALTIME_URL",
        "LIVE_EVENTS_API_KEY",
        "LIVE_EVENTS_API_ID",
        "LIVE_EVENTS_API_KEY_ID",
        "TOKEN_SIGNING_SECRET_ARN",
        "GAME_KEY_SECRET_ARN",
        "RECEIPT_SIGNING_SECRET_ARN",
        "EDGE_PROOF_SECRET_ARN",
    }
)


def function_env(template: dict, region: str = "us-east-1") -> dict[str, str]:
    """The union of the Lambda functions' environment variables, Refs resolved to local names.

    The handlers share one process locally, so their variables must agree.
    """
    tables = {s.logical_id: s.local_name for s in table_specs(template)}
    env: dict[str, str] = {}
    for fn_id, res in sorted(template.get("Resources", {}).items()):
        if res.get("Type") != "AWS::Lambda::Function":
            continue
        variables = res.get("Properties", {}).get("Environment", {}).get("Variables", {})
        for name, raw in variables.items():
            value = _resolve(raw, tables, region)
            if value is None:
                if name not in GIVEN_LOCALLY:
                    print(f"note: {fn_id} {name}={raw!r} has no local value; left unset", file=sys.stderr)
                continue
            if env.setdefault(name, value) != value:
                raise ValueError(f"functions disagree on {name}: {env[name]!r} vs {value!r}")
    return env


def _resolve(raw, tables: dict[str, str], region: str) -> str | None:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, (int, float, bool)):
        return str(raw).lower() if isinstance(raw, bool) else str(raw)
    if isinstance(raw, dict) and len(raw) == 1:
        ((fn, arg),) = raw.items()
        if fn == "Ref":
            pseudo = {
                "AWS::Region": region,
                "AWS::AccountId": LOCAL_ACCOUNT,
                "AWS::Partition": "aws",
                "AWS::URLSuffix": "amazonaws.com",
            }
            return tables.get(arg, pseudo.get(arg))
        if fn == "Fn::GetAtt" and arg[0] in tables and arg[1] == "Arn":
            return f"arn:aws:dynamodb:{region}:{LOCAL_ACCOUNT}:table/{tables[arg[0]]}"
        if fn == "Fn::Join":
            sep, parts = arg
            resolved = [_resolve(p, tables, region) for p in parts]
            return None if None in resolved else sep.join(resolved)
    return None


class PreflightSettings(TypedDict, total=False):
    allow_headers: str
    max_age: str


def api_definition(template: dict) -> dict:
    """The REST API's imported OpenAPI document (its Body): the deployed definition of every route."""
    (body,) = [
        r["Properties"]["Body"]
        for r in template.get("Resources", {}).values()
        if r.get("Type") == "AWS::ApiGateway::RestApi" and "Body" in r.get("Properties", {})
    ]
    return body


@dataclass(frozen=True)
class DeployedMethod:
    """What the imported document tells API Gateway of one method: whether it takes an API key, the request headers
    it requires (present and not blank), and the handler ("module.attr") its proxy integration invokes."""

    needs_key: bool
    required_headers: tuple[str, ...]
    handler: str


def integration_target(op: dict) -> str | None:
    """The logical id of the function an operation's proxy integration invokes (the Fn::GetAtt in its URI), None
    for a mock."""
    integration = op.get("x-amazon-apigateway-integration", {})
    if integration.get("type") != "aws_proxy":
        return None
    (target,) = [
        part["Fn::GetAtt"][0]
        for part in integration["uri"]["Fn::Join"][1]
        if isinstance(part, dict) and "Fn::GetAtt" in part
    ]
    return target


def needs_key(op: dict) -> bool:
    """Whether API Gateway requires an API key on the operation (the document's `api_key` security)."""
    return any("api_key" in requirement for requirement in op.get("security", []))


def required_headers(op: dict) -> tuple[str, ...]:
    """The request headers API Gateway's validator requires on the operation (present and not blank)."""
    return tuple(p["name"] for p in op.get("parameters", []) if p["in"] == "header" and p.get("required"))


def deployed_methods(template: dict) -> dict[tuple[str, str], DeployedMethod]:
    """(path, METHOD) -> DeployedMethod for every proxy-integrated method of the imported document."""
    handlers = {
        lid: r["Properties"]["Handler"]
        for lid, r in template.get("Resources", {}).items()
        if r.get("Type") == "AWS::Lambda::Function" and "Handler" in r.get("Properties", {})
    }
    methods = {}
    for path, ops in api_definition(template)["paths"].items():
        for verb, op in ops.items():
            target = integration_target(op) if isinstance(op, dict) else None
            if target is not None:
                methods[(path, verb.upper())] = DeployedMethod(needs_key(op), required_headers(op), handlers[target])
    return methods


def preflight_settings(template: dict) -> PreflightSettings:
    """Allow-Headers and Max-Age of the API's CORS preflight (the document's OPTIONS mock integration)."""
    for ops in api_definition(template)["paths"].values():
        answer = ops["options"]["x-amazon-apigateway-integration"]["responses"]["default"]
        params = {k.rsplit(".", 1)[-1]: v.strip("'") for k, v in answer.get("responseParameters", {}).items()}
        return {
            "allow_headers": params.get("Access-Control-Allow-Headers", "Content-Type,X-Api-Key,Authorization"),
            "max_age": params.get("Access-Control-Max-Age", "3600"),
        }
    return {}


def function_timeouts(template: dict) -> dict[str, int]:
    """Each Lambda function's Timeout (seconds), keyed by its Handler ("module.attr")."""
    return {
        r["Properties"]["Handler"]: int(r["Properties"].get("Timeout", 3))  # 3 s: Lambda's default
        for r in template.get("Resources", {}).values()
        if r.get("Type") == "AWS::Lambda::Function" and "Handler" in r.get("Properties", {})
    }


def gateway_response_origin(template: dict) -> str | None:
    """The static Access-Control-Allow-Origin of the API's gateway responses (its own error answers)."""
    for answer in api_definition(template).get("x-amazon-apigateway-gateway-responses", {}).values():
        value = answer.get("responseParameters", {}).get("gatewayresponse.header.Access-Control-Allow-Origin")
        if isinstance(value, str):
            return value.strip("'")
    return None
