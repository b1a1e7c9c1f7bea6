"""A user's CDK app with module names of its own (leaderboard, schema, routes, handlers), using the installed construct
twice in one stack and once in another, with cdk-nag. Prints a JSON report of what it saw. (The Lambda package's one
import name is `cdk_leaderboard_lambda`, in Lambda and in the construct: an app with its own is refused, see
test_wheel.py.)"""

import importlib
import json
import os
import sys

import handlers
import leaderboard
import routes
import schema

own = {m.__name__: m for m in (leaderboard, schema, routes, handlers)}
path_before = list(sys.path)
modules_before = set(sys.modules)

import aws_cdk as cdk  # noqa: E402
from aws_cdk import Validations  # noqa: E402
from cdk_leaderboard import Board, Leaderboard, Monitoring  # noqa: E402
from cdk_nag import AwsSolutionsChecks  # noqa: E402

schema_again = importlib.import_module("schema")  # what `import schema` gives now
new_top_level = sorted({m.split(".")[0] for m in set(sys.modules) - modules_before})

app = cdk.App(outdir=os.environ["OUTDIR"])
# USER_APP_ENV="account/region": stacks with a concrete env, as the CDK recommends; unset: env-agnostic.
account, _, region = os.environ.get("USER_APP_ENV", "").partition("/")
env = cdk.Environment(account=account, region=region) if account else None
games = cdk.Stack(app, "games", env=env)
first = Leaderboard(games, "Arcade")
Leaderboard(
    games,
    "Racing",
    boards=[Board(board_id="lap", order="asc", periods=["all-time", "weekly"])],
    account_has_api_gateway_logging_role=True,
    dashboard=False,
)
tools = cdk.Stack(app, "tools", env=env)
Leaderboard(tools, "Leaderboard", account_has_api_gateway_logging_role=True, monitoring=Monitoring(enabled=False))
Validations.of(app).add_plugins(AwsSolutionsChecks(app))
assembly = app.synth()  # raises on any unacknowledged cdk-nag finding

print(
    json.dumps(
        {
            "own_modules_kept": all(sys.modules[name] is module for name, module in own.items()),
            "schema_is_own": schema_again is schema and schema_again.OWNER == "user-app",
            "leaderboard_is_own": importlib.import_module("leaderboard").OWNER == "user-app",
            "sys_path_unchanged": sys.path == path_before,
            "new_top_level_modules": new_top_level,
            "construct_file": sys.modules["cdk_leaderboard"].__file__,
            "runtime_file": sys.modules["cdk_leaderboard_lambda"].__file__,
            "runtime_names": sorted(m for m in sys.modules if "runtime.cdk_leaderboard_lambda" in m),
            "stacks": sorted(s.stack_name for s in assembly.stacks),
            "rest_apis": sorted(
                r["Properties"]["Name"]
                for s in assembly.stacks
                for r in s.template["Resources"].values()
                if r["Type"] == "AWS::ApiGateway::RestApi"
            ),
            "first_api_is_attribute": first.api.node.path,
        }
    )
)
