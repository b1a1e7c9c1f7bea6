"""The runtime a test or a local tool (the benchmarks, the local stack's own calls) is serving with, for the code of
theirs that fetches it: `serving(runtime)` binds it, `runtime()` gives it. The Lambda package never reads it: its
handlers hand their runtime down as an argument (tests/unit/test_structure.py: no module of the package reads a
context variable). A context variable, not process state: each thread sees what it bound, a worker thread what
`carried` gives it."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from cdk_leaderboard_lambda.composition import Runtime
    from cdk_leaderboard_lambda.shared.settings import Settings

R = TypeVar("R")

_runtime: contextvars.ContextVar[Runtime | None] = contextvars.ContextVar("runtime", default=None)


@contextmanager
def serving(runtime: Runtime) -> Iterator[Runtime]:
    """Bind `runtime` to the code run inside (an invocation, a test, a local tool) and unbind it afterwards."""
    token = _runtime.set(runtime)
    try:
        yield runtime
    finally:
        _runtime.reset(token)


def serve_from_now_on(runtime: Runtime) -> None:
    """Bind `runtime` for the rest of this thread (a tool's main thread: the benchmark). Not `serving(...).__enter__()`:
    that context manager, left unreferenced, is collected at once and its exit unbinds the runtime again."""
    _runtime.set(runtime)


def runtime() -> Runtime:
    """The runtime of the invocation in progress."""
    found = _runtime.get()
    if found is None:
        raise RuntimeError(
            "no runtime is serving: call this inside a handler, or bind one with invocation.serving(runtime)"
        )
    return found


def settings() -> Settings:
    return runtime().settings


def now() -> datetime:
    """The time, in UTC, from the runtime's clock (a settable one in tests and, when asked, locally)."""
    return runtime().clock.now()


def seconds() -> float:
    """The runtime's clock as epoch seconds."""
    return now().timestamp()


def carried(work: Callable[..., R]) -> Callable[..., R]:
    """`work` bound to this invocation's runtime, for a worker thread (threads do not inherit context variables).
    (Callable[..., R], not a ParamSpec: mypy cannot infer the lambdas' parameters through one.)"""
    bound = runtime()

    def run(*args: Any, **kwargs: Any) -> R:
        with serving(bound):
            return work(*args, **kwargs)

    return run
