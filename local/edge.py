"""The edge, locally: Nginx's proxy cache in front of the local gateway, with the CloudFront distribution's rules
(stacks/leaderboard/edge.py). Its config is local/edge.conf.template, rendered here from the route table."""

from __future__ import annotations

import hashlib
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from string import Template

from local.dynamodb_local import free_port
from local.gateway import routes_module
from local.processes import ProcessGroup, accepts

TEMPLATE_PATH = Path(__file__).resolve().parent / "edge.conf.template"
PROCESS_NAME = "edge"
_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_ORIGIN = re.compile(r"http://((\d{1,3}\.){3}\d{1,3}|localhost):\d{1,5}")
_LISTEN = re.compile(r"((\d{1,3}\.){3}\d{1,3}:)?\d{1,5}")


def query_names() -> tuple[str, ...]:
    names = routes_module().edge_query_names()
    for name in names:
        if not _NAME.fullmatch(name):  # it becomes an nginx variable name
            raise ValueError(f"query parameter {name!r} cannot be an nginx variable")
    return names


def render(listen: str, origin_url: str, prefix: Path) -> str:
    """nginx.conf of the edge: listen on `listen` ("127.0.0.1:3002"), in front of `origin_url` (http://host:port)."""
    if not _LISTEN.fullmatch(listen):
        raise ValueError(f"bad listen address {listen!r}")
    if not _ORIGIN.fullmatch(origin_url):
        raise ValueError(f"the edge's origin must be http://address:port, not {origin_url!r}")
    if not re.fullmatch(r"[A-Za-z0-9._/+-]+", str(prefix)):
        raise ValueError(f"the edge's directory {prefix} has characters nginx.conf cannot take unquoted")
    names = query_names()
    # One map per parameter: "&name=value" when the caller gave a value, else nothing; joined in sorted order.
    maps = "".join(
        f'    map $arg_{name} $edge_q_{name} {{\n        "" "";\n        default "&{name}=$arg_{name}";\n    }}\n'
        for name in names
    )
    return Template(TEMPLATE_PATH.read_text()).substitute(
        USER=pwd.getpwuid(os.geteuid()).pw_name,
        STALE_SECONDS=str(max(r.cache.stale_seconds for r in routes_module().ROUTES if r.cache.cacheable)),
        LISTEN=listen,
        ORIGIN=origin_url.split("://", 1)[1],
        PREFIX_DIR=str(prefix),
        ORIGIN_SOCKET=str(origin_socket(prefix)),
        QUERY_MAPS=maps,
        QUERY_JOIN="".join(f"$edge_q_{name}" for name in names),
        KEEP_MAP="".join(
            f'        "~(^|[ ,])max-age={seconds}(,|$)" "{seconds - 1}";\n' for seconds in max_ages() if seconds > 1
        ),
    )


def origin_socket(prefix: Path) -> Path:
    """The unix socket between the cache and the origin's server block: in the edge's directory, or in the temp
    directory when that path is too long for a socket (sun_path holds 108 bytes)."""
    path = prefix / "origin.sock"
    if len(str(path)) <= 100:
        return path
    digest = hashlib.sha256(str(prefix).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"leaderboard-edge-{digest}.sock"


def max_ages() -> list[int]:
    """Every max-age an answer of a cached route can state (http.cache_control), in seconds."""
    ages = set()
    for route in routes_module().ROUTES:
        if route.cache.cacheable:
            ages |= {
                route.cache.max_age,
                route.cache.settled_max_age,
                min(route.cache.max_age, routes_module().LIVE.max_age),
            }
    return sorted(age for age in ages if age > 0)


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).is_file()), None)


def start(procs: ProcessGroup, prefix: Path, port: int, origin_url: str, nginx: str | None = None) -> str:
    """Start the edge on 127.0.0.1:port (0: any free port); returns its URL."""
    nginx = nginx or nginx_binary()
    if nginx is None:
        raise SystemExit("the edge needs nginx (`apt-get install nginx`)")
    port = port or free_port()
    prefix.mkdir(parents=True, exist_ok=True)
    conf = prefix / "edge.conf"
    conf.write_text(render(f"127.0.0.1:{port}", origin_url, prefix))
    argv = [nginx, "-p", f"{prefix}/", "-c", str(conf), "-e", str(prefix / "edge-error.log"), "-g", "daemon off;"]
    check = subprocess.run([*argv[:-2], "-t", "-q"], capture_output=True, text=True)
    if check.returncode:
        raise SystemExit(f"nginx rejected {conf}:\n{check.stderr}")
    proc = procs.spawn(PROCESS_NAME, argv, prefix / "edge.out")
    deadline = time.monotonic() + 15
    while not accepts(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the edge's nginx did not start; see {prefix / 'edge-error.log'}")
        time.sleep(0.1)
    return f"http://127.0.0.1:{port}"
