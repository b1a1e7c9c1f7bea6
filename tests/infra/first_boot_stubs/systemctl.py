"""Stand-in for systemctl: runs a unit's ExecStart from the sandbox root, and the real nginx for nginx.service."""

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stub import ROOT, STATE, die, log_call  # noqa: E402

args = [a for a in sys.argv[1:] if a != "--quiet"]
log_call("systemctl", sys.argv[1:])
NGINX = ["nginx", "-c", f"{ROOT}/etc/nginx/nginx.conf", "-e", f"{ROOT}/var/log/nginx/error.log"]
PID_FILE = Path(f"{ROOT}/run/nginx.pid")
PACKAGE_UNITS = ("amazon-cloudwatch-agent.service", "logrotate.timer")
AGENT_CONFIG = Path(f"{ROOT}/opt/aws/amazon-cloudwatch-agent/etc/amazon-cloudwatch-agent.d/file_config.json")


def nginx_running() -> bool:
    try:
        os.kill(int(PID_FILE.read_text()), 0)
        return True
    except (FileNotFoundError, ValueError, ProcessLookupError):
        return False


def start_nginx() -> int:
    code = subprocess.run(NGINX).returncode
    deadline = time.monotonic() + 30  # generous for a loaded machine; returns once Nginx runs
    while code == 0 and not nginx_running():
        if time.monotonic() > deadline:
            return 1
        time.sleep(0.05)
    return code


def run_unit(unit: str) -> int:
    """The unit's ExecStart, with its absolute paths under the sandbox root."""
    text = Path(f"{ROOT}/etc/systemd/system/{unit}").read_text()
    (line,) = [row for row in text.splitlines() if row.startswith("ExecStart=")]
    argv = [a if not a.startswith("/opt/") else ROOT + a for a in shlex.split(line.removeprefix("ExecStart="))]
    return subprocess.run(argv).returncode


verb, units = args[0], args[1:]
if verb == "daemon-reload":
    sys.exit(0)
if verb == "enable":
    with open(STATE / "enabled", "a") as f:
        f.writelines(u + "\n" for u in units)
    sys.exit(0)
(unit,) = units
if verb == "is-active":
    sys.exit(0 if unit == "nginx.service" and nginx_running() else 3)
if unit == "nginx.service":
    if verb == "start":
        sys.exit(0 if nginx_running() else start_nginx())
    if verb == "reload":
        sys.exit(subprocess.run([*NGINX, "-s", "reload"]).returncode)
    if verb == "stop" and nginx_running():
        os.kill(int(PID_FILE.read_text()), signal.SIGQUIT)
        sys.exit(0)
elif unit in PACKAGE_UNITS and verb in ("start", "restart"):
    # Units the packages bring: the agent starts only once fetch-config has given it a configuration.
    if unit == "amazon-cloudwatch-agent.service" and not AGENT_CONFIG.exists():
        die("amazon-cloudwatch-agent: no configuration (run fetch-config)", 1)
    with open(STATE / "started", "a") as f:
        f.write(unit + "\n")
    sys.exit(0)
elif verb in ("start", "restart"):
    sys.exit(run_unit(unit))
die(f"systemctl stub: unexpected {args}", 2)
