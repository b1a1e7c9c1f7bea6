"""Where the construct finds the Lambda code and the dashboard files, and the Lambda package's pure-data modules.

Both ship inside this package (`runtime` is the Lambda asset's root, `dashboard_ec2` the dashboard's files), so an
installed wheel and this repository (an editable install) find them the same way. The Lambda package has ONE name in
every process: top-level `cdk_leaderboard_lambda`, the name Lambda imports it by (the asset's root is `runtime`). The
construct loads it under that name from the file it ships, without touching sys.path, so that the construct, the
handlers, the tests and the local stack all share one module per file; an app's own `leaderboard`, `routes`, `schema` or
`handlers` modules are untouched (the name is the distribution's own); one that has a `cdk_leaderboard_lambda` of its
own is refused with a clear message rather than handed the wrong one.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from . import dashboard_ec2 as _dashboard_package
from . import runtime as _runtime_package

LAMBDA_SRC = Path(next(iter(_runtime_package.__path__)))
DASHBOARD_DIR = Path(next(iter(_dashboard_package.__path__)))
RUNTIME_PACKAGE = (
    "cdk_leaderboard_lambda"  # the Lambda package's one import name: its handlers are RUNTIME_PACKAGE.handlers.*
)


def _ours(origin: str | None) -> bool:
    return origin is not None and Path(origin).resolve() == (LAMBDA_SRC / RUNTIME_PACKAGE / "__init__.py").resolve()


def _refuse(where: str | None) -> ImportError:
    return ImportError(
        f"cdk_leaderboard imports its Lambda package as top-level `{RUNTIME_PACKAGE}` (the name Lambda runs it by), "
        f"but `{RUNTIME_PACKAGE}` is another module here ({where}). Rename your own `{RUNTIME_PACKAGE}` module or "
        "package: one name may not mean two modules in one process."
    )


def import_runtime() -> ModuleType:
    """The Lambda package as top-level `cdk_leaderboard_lambda`: the one already imported, the one a plain import finds
    (the local stack and the tests put the asset's root on sys.path, as Lambda does), or else the one shipped here."""
    loaded = sys.modules.get(RUNTIME_PACKAGE)
    if loaded is not None:
        if not _ours(getattr(loaded, "__file__", None)):
            raise _refuse(getattr(loaded, "__file__", None) or repr(loaded))
        return loaded
    found = importlib.util.find_spec(RUNTIME_PACKAGE)
    if found is not None:
        if not _ours(found.origin):
            raise _refuse(found.origin)
        return importlib.import_module(RUNTIME_PACKAGE)
    package_dir = LAMBDA_SRC / RUNTIME_PACKAGE
    spec = importlib.util.spec_from_file_location(
        RUNTIME_PACKAGE, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[RUNTIME_PACKAGE] = module  # before running it, as the import system does: its submodules find it
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[RUNTIME_PACKAGE]
        raise
    return module


import_runtime()

# The modules the construct reads (pure data and parsing: no boto3), under the runtime's one name.
import cdk_leaderboard_lambda.domain.board_validation as board_validation  # noqa: E402 (the package is imported above)
import cdk_leaderboard_lambda.shared.errors as errors  # noqa: E402 (the package is imported above)
import cdk_leaderboard_lambda.shared.limits as limits  # noqa: E402 (the package is imported above)
import cdk_leaderboard_lambda.shared.live_channels as live_channels  # noqa: E402 (the package is imported above)
import cdk_leaderboard_lambda.shared.metrics as metrics  # noqa: E402 (the package is imported above)
import cdk_leaderboard_lambda.shared.schema as schema  # noqa: E402 (the package is imported above)
import cdk_leaderboard_lambda.web.deployed_api as deployed_api  # noqa: E402 (the package is imported above)
import cdk_leaderboard_lambda.web.routes as routes  # noqa: E402 (the package is imported above)

__all__ = [
    "DASHBOARD_DIR",
    "LAMBDA_SRC",
    "RUNTIME_PACKAGE",
    "board_validation",
    "deployed_api",
    "errors",
    "import_runtime",
    "limits",
    "live_channels",
    "metrics",
    "routes",
    "schema",
]
