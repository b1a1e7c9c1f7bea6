"""The dashboard: the real Nginx with the EC2 instance's nginx.conf, or a Python stand-in.

The site is served from <run dir>/site: links to dashboard_ec2/site's files (edits show
on reload) plus the config.json that user data writes on EC2.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from cdk_leaderboard.dashboard_ec2 import render  # the same renderer EC2's user data runs (one name: the construct's)

from local import ROOT
from local.processes import ProcessGroup, accepts

SITE_SRC = ROOT / "dashboard_ec2" / "site"
ADMIN_USER = render.DEFAULT_ADMIN_USER


def prepare_site(site: Path, api_url: str) -> Path:
    """A link to each file of the real site, and a local config.json."""
    if site.exists():
        shutil.rmtree(site)
    site.mkdir(parents=True)
    for entry in SITE_SRC.iterdir() if SITE_SRC.is_dir() else ():
        if entry.name != "config.json":
            (site / entry.name).symlink_to(entry)
    render.write_site_config(site / "config.json", "local", api_url)
    return site


def start(
    procs: ProcessGroup,
    run_dir: Path,
    port: int,
    api_url: str,
    admin_key: str,
    admin_password: str,
    edge_url: str | None = None,
    live_url: str | None = None,
) -> str:
    """Serve the dashboard on 127.0.0.1:port; returns a note on what serves it.

    Its /admin-api/ routes (snapshot, simulate) are admin routes: the proxy adds the ADMIN key to them. Nginx
    reads /api/ through the local edge (`edge_url`, http://127.0.0.1:PORT: the API's paths, cached) as EC2's
    Nginx reads through CloudFront, or from the API when there is none. The page follows live updates on the
    local AppSync Events stand-in itself (`live_url`, ws://127.0.0.1:PORT/event/realtime, which discovery hands
    out): Nginx's CSP allows exactly that endpoint, as EC2's allows the Event API's. The Python stand-in (no
    nginx, so no edge either) reads from the API and sets no CSP.
    """
    site = prepare_site(run_dir / "site", api_url)
    nginx = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if nginx:
        conf = _start_nginx(
            procs, run_dir / "nginx", nginx, port, site, api_url, admin_key, admin_password, edge_url, live_url
        )
        return f"nginx ({nginx}, config {conf}{', /api/ through the edge ' + edge_url if edge_url else ''})"
    from local.static_proxy import serve  # the fallback: Python serves the files and proxies /api/

    serve(port, site, api_url, admin_key, ADMIN_USER, admin_password)
    return "Python fallback (nginx is not installed: `apt-get install nginx` to use the EC2 config)"


VALUES_FILE = "values.json"


def refresh_admin_key(procs: ProcessGroup, run_dir: Path, admin_key: str, timeout: float = 15.0) -> None:
    """What leaderboard-secrets.service does on EC2 after `make rotate-key`: Nginx's config rendered again with the
    new admin key and Nginx reloaded; returns once new workers (with the new config) serve. The Python fallback
    cannot take a new key: restart `make run` there."""
    prefix = run_dir / "nginx"
    master = next((p for name, p in procs.running() if name == "nginx" and p.poll() is None), None)
    if master is None or not (prefix / VALUES_FILE).exists():
        raise RuntimeError("no local Nginx dashboard to refresh (the Python fallback keeps its key: restart it)")
    values = {**json.loads((prefix / VALUES_FILE).read_text()), "API_KEY": admin_key}
    render.write_nginx_conf(prefix / "nginx.conf", values)
    (prefix / VALUES_FILE).write_text(json.dumps(values))
    before = _workers(master.pid)
    master.send_signal(signal.SIGHUP)  # nginx -s reload: new workers on the new config, the old ones finish
    deadline = time.monotonic() + timeout
    while not (_workers(master.pid) - before):
        if time.monotonic() > deadline:
            raise RuntimeError(f"nginx did not reload; see {prefix / 'error.log'}")
        time.sleep(0.05)


def _workers(pid: int) -> set[str]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return set(path.read_text().split()) if path.exists() else set()


def _start_nginx(
    procs, prefix: Path, nginx, port, site, api_url, admin_key, admin_password, edge_url=None, live_url=None
) -> Path:
    prefix.mkdir(parents=True, exist_ok=True)
    htpasswd = prefix / "htpasswd"
    render.write_htpasswd(htpasswd, ADMIN_USER, admin_password)
    host = api_url.split("://", 1)[1]
    conf = prefix / "nginx.conf"
    values = {
        "LISTEN_PORT": f"127.0.0.1:{port}",
        "SITE_ROOT": str(site),
        "API_UPSTREAM": api_url,
        "API_BASE_PATH": "",
        "API_HOST": host,
        "API_KEY": admin_key,  # added under /admin-api/ only
        "HTPASSWD_FILE": str(htpasswd),
        "PREFIX_DIR": str(prefix),
        "RESOLVER": "127.0.0.1",
        # The edge's paths are the API's (no stage locally either); without it, /api/ reads from the API.
        **({"EDGE_UPSTREAM": edge_url, "EDGE_BASE_PATH": ""} if edge_url else {}),
        "LIVE_REALTIME_URL": live_url or "",
    }
    render.write_nginx_conf(conf, values)
    (prefix / VALUES_FILE).write_text(json.dumps(values))  # what refresh_admin_key renders again
    argv = [nginx, "-p", f"{prefix}/", "-c", str(conf), "-e", str(prefix / "error.log"), "-g", "daemon off;"]
    check = subprocess.run([*argv[:-2], "-t", "-q"], capture_output=True, text=True)
    if check.returncode:
        raise SystemExit(f"nginx rejected {conf}:\n{check.stderr}")
    proc = procs.spawn("nginx", argv, prefix / "nginx.out")
    deadline = time.monotonic() + 15
    while not accepts(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"nginx did not start; see {prefix / 'error.log'}")
        time.sleep(0.1)
    return conf
