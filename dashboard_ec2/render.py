#!/usr/bin/env python3
"""Render the dashboard's nginx.conf, its htpasswd file and the site's config.json.

Standard library only: it runs on the EC2 instance from user data (python3 of
Amazon Linux 2023) and is imported by the local stack and the tests.

    python3 render.py --out /etc/nginx/nginx.conf LISTEN_PORT=80 SITE_ROOT=/srv/site ... API_KEY=@/run/key
    python3 render.py --htpasswd /etc/nginx/leaderboard.htpasswd --admin-user admin < password-file
    python3 render.py --site-config /srv/site/config.json --stage prod --api-url https://...

The template (nginx.conf.template beside this file) is a string.Template: ``${NAME}``
is a placeholder, ``$$name`` an nginx variable. A value may be given as ``KEY=@FILE``
to read it from a file (so a secret never shows on a command line).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import secrets
import sys
import tempfile
from pathlib import Path
from string import Template

try:
    import grp
    import pwd
except ImportError:  # Windows: the CDK construct imports this module for DEFAULT_ADMIN_USER only
    grp = pwd = None  # type: ignore[assignment]

HERE = Path(__file__).resolve().parent
TEMPLATE_PATH = HERE / "nginx.conf.template"
SITE_DIR = HERE / "site"

# Every placeholder the template needs. OPTIONAL ones get a default from optional_defaults().
REQUIRED_KEYS = (
    "LISTEN_PORT",  # "8080" or "127.0.0.1:8080"
    "SITE_ROOT",  # absolute path of dashboard_ec2/site (or a copy of it)
    "API_UPSTREAM",  # scheme + host[:port], no path: https://abc.execute-api.us-east-1.amazonaws.com
    "API_BASE_PATH",  # the stage path, "/prod" on AWS, "" locally
    "API_HOST",  # Host header (and TLS SNI name) sent upstream
    "API_KEY",  # the ADMIN API key, the x-api-key that /admin-api/ adds server-side
    "HTPASSWD_FILE",  # written by write_htpasswd()
    "PREFIX_DIR",  # writable directory: logs, pid and temp files
    "RESOLVER",  # DNS resolver for a host-name upstream: 169.254.169.253 on EC2, 127.0.0.1 locally
)
OPTIONAL_KEYS = (
    "NGINX_USER",  # worker user: "nginx" where that user exists (EC2), else whoever runs this
    "LOG_DIR",  # access.log and error.log; default ${PREFIX_DIR}; /var/log/nginx on EC2 (logrotate, CloudWatch)
    "PID_FILE",  # default ${PREFIX_DIR}/nginx.pid; /run/nginx.pid to use the distro's nginx.service
    "CA_BUNDLE",  # CA certificates that verify the upstream's TLS certificate
    "REAL_IP_FROM",  # proxy (CIDR) whose X-Forwarded-For names the client; default "unix:", i.e. no proxy
    # The edge behind /api/ (the public reads' cache: CloudFront on AWS, local/edge.py's Nginx locally). Without
    # EDGE_UPSTREAM, all three are the API's values (/api/ reads from API Gateway itself).
    "EDGE_UPSTREAM",  # scheme + host[:port], no path: https://d111111abcdef8.cloudfront.net
    "EDGE_BASE_PATH",  # "" with an edge: its paths are the API's paths (CloudFront's origin path holds the stage)
    "EDGE_HOST",  # Host header (and TLS SNI name) sent to the edge; default: EDGE_UPSTREAM's host[:port]
    # Live updates: the AppSync Event API's realtime endpoint, which the page connects to itself (the one origin
    # besides its own that the CSP's connect-src names): wss://<realtime domain>/event/realtime on AWS,
    # ws://127.0.0.1:PORT/event/realtime for make run's stand-in; empty (the default): live updates off.
    "LIVE_REALTIME_URL",
)
CA_BUNDLES = (
    "/etc/ssl/certs/ca-certificates.crt",  # Debian, Ubuntu
    "/etc/pki/tls/certs/ca-bundle.crt",  # Amazon Linux, RHEL, Fedora
    "/etc/ssl/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",  # Alpine, macOS
)
DEFAULT_ADMIN_USER = "admin"

# A value goes verbatim into nginx.conf: anything that could end a directive or open a
# block (; { } quotes, whitespace, $) is refused rather than escaped.
_SAFE_VALUE = re.compile(r"[A-Za-z0-9._:/@+=,%~-]*")
_UPSTREAM = re.compile(r"https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?")
_TRUSTED_PROXY = re.compile(r"unix:|(\d{1,3}\.){3}\d{1,3}(/\d{1,2})?|[0-9A-Fa-f:]+(/\d{1,3})?")
_REALTIME_URL = re.compile(r"wss?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(/[A-Za-z0-9._~/-]*)?")
_LISTEN = re.compile(r"((\d{1,3}\.){3}\d{1,3}:|\[[0-9A-Fa-f:]+\]:)?\d{1,5}")


def default_worker_user() -> str:
    """The user nginx workers run as: "nginx" if it exists (Amazon Linux), else the current user.

    Locally (Debian, often root in CI) the workers must read files owned by the caller, such as
    a 0600 htpasswd file and a site inside a home directory, so they run as the caller.
    """
    try:
        pwd.getpwnam("nginx")
        return "nginx"
    except KeyError:
        return pwd.getpwuid(os.geteuid()).pw_name


def default_ca_bundle() -> str:
    for candidate in CA_BUNDLES:
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError(f"no CA bundle found in {CA_BUNDLES}: pass CA_BUNDLE=...")


def optional_defaults(values: dict) -> dict:
    """Defaults for OPTIONAL_KEYS that `values` does not set (computed only when needed)."""
    out = {}
    if "NGINX_USER" not in values:
        out["NGINX_USER"] = default_worker_user()
    if "PID_FILE" not in values and "PREFIX_DIR" in values:
        out["PID_FILE"] = f"{str(values['PREFIX_DIR']).rstrip('/')}/nginx.pid"
    if "LOG_DIR" not in values and "PREFIX_DIR" in values:
        out["LOG_DIR"] = str(values["PREFIX_DIR"]).rstrip("/")
    if "CA_BUNDLE" not in values:
        out["CA_BUNDLE"] = default_ca_bundle()
    if "REAL_IP_FROM" not in values:
        out["REAL_IP_FROM"] = "unix:"  # trusts only UNIX sockets, which the dashboard never listens on
    if values.get("EDGE_UPSTREAM"):
        if "EDGE_HOST" not in values:
            out["EDGE_HOST"] = str(values["EDGE_UPSTREAM"]).split("://", 1)[-1]
        if "EDGE_BASE_PATH" not in values:
            out["EDGE_BASE_PATH"] = ""
    else:  # no edge: /api/ reads from the API, as /admin-api/ does
        for edge, api in (
            ("EDGE_UPSTREAM", "API_UPSTREAM"),
            ("EDGE_HOST", "API_HOST"),
            ("EDGE_BASE_PATH", "API_BASE_PATH"),
        ):
            if api in values:
                out[edge] = values[api]
    if "LIVE_REALTIME_URL" not in values:
        out["LIVE_REALTIME_URL"] = ""
    return out


def validate(values: dict) -> None:
    """Refuse values that would not make a correct, safe nginx.conf."""
    for key, value in values.items():
        if not _SAFE_VALUE.fullmatch(str(value)):
            raise ValueError(f"{key}: unsafe characters in {value!r} (allowed: letters, digits, ._:/@+=,%~-)")
    for key in ("API_UPSTREAM", "EDGE_UPSTREAM"):
        if key in values and not _UPSTREAM.fullmatch(str(values[key])):
            raise ValueError(f"{key} must be scheme://host[:port] with no path, got {values[key]!r}")
    if "REAL_IP_FROM" in values and not _TRUSTED_PROXY.fullmatch(str(values["REAL_IP_FROM"])):
        raise ValueError(f"REAL_IP_FROM must be unix:, an address or a CIDR, got {values['REAL_IP_FROM']!r}")
    for key in ("API_BASE_PATH", "EDGE_BASE_PATH"):
        base = str(values.get(key, ""))
        if base and (not base.startswith("/") or base.endswith("/")):
            raise ValueError(f"{key} must be empty or like '/prod' (leading, no trailing slash), got {base!r}")
    realtime = str(values.get("LIVE_REALTIME_URL", ""))
    if realtime and not _REALTIME_URL.fullmatch(realtime):
        raise ValueError(f"LIVE_REALTIME_URL must be empty or wss://host[:port]/path, got {realtime!r}")
    if "LISTEN_PORT" in values and not _LISTEN.fullmatch(str(values["LISTEN_PORT"])):
        raise ValueError(f"LISTEN_PORT must be PORT or IPV4:PORT, got {values['LISTEN_PORT']!r}")
    for key in ("SITE_ROOT", "HTPASSWD_FILE", "PREFIX_DIR", "LOG_DIR", "PID_FILE", "CA_BUNDLE"):
        if key in values and not str(values[key]).startswith("/"):
            raise ValueError(f"{key} must be an absolute path, got {values[key]!r}")
    if "API_KEY" in values and not str(values["API_KEY"]):
        raise ValueError("API_KEY is empty")


def render_nginx_conf(values: dict, template: str | None = None) -> str:
    """nginx.conf text for `values`; KeyError names every missing placeholder."""
    text = TEMPLATE_PATH.read_text() if template is None else template
    values = {key: str(value) for key, value in values.items()}
    missing = [key for key in REQUIRED_KEYS if key not in values]
    if missing:
        raise KeyError(f"missing nginx.conf values: {', '.join(missing)}")
    values = {**optional_defaults(values), **values}
    validate(values)
    return Template(text).substitute(values)


# --- htpasswd: SHA-512 crypt ("$6$"), which nginx checks through the system crypt() ---

_CRYPT_ALPHABET = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _b64_24bit(b2: int, b1: int, b0: int, n: int) -> str:
    w = (b2 << 16) | (b1 << 8) | b0
    out = []
    for _ in range(n):
        out.append(_CRYPT_ALPHABET[w & 0x3F])
        w >>= 6
    return "".join(out)


def sha512_crypt(password: str, salt: str | None = None, rounds: int | None = None) -> str:
    """The glibc/libxcrypt "$6$" hash of `password` (Ulrich Drepper's SHA-crypt specification)."""
    pw = password.encode()
    if salt is None:
        salt = "".join(secrets.choice(_CRYPT_ALPHABET) for _ in range(16))
    s = salt.encode()[:16]
    n_rounds = 5000 if rounds is None else max(1000, min(999_999_999, rounds))

    b = hashlib.sha512(pw + s + pw).digest()
    a = hashlib.sha512(pw + s)
    length = len(pw)
    for _ in range(length // 64):
        a.update(b)
    a.update(b[: length % 64])
    i = length
    while i > 0:
        a.update(b if i & 1 else pw)
        i >>= 1
    a_digest = a.digest()

    dp = hashlib.sha512(pw * length).digest()
    p = (dp * (length // 64 + 1))[:length]
    ds = hashlib.sha512(s * (16 + a_digest[0])).digest()
    s_bytes = (ds * (len(s) // 64 + 1))[: len(s)]

    c = a_digest
    for r in range(n_rounds):
        h = hashlib.sha512()
        h.update(p if r & 1 else c)
        if r % 3:
            h.update(s_bytes)
        if r % 7:
            h.update(p)
        h.update(c if r & 1 else p)
        c = h.digest()

    encoded = []
    for i in range(21):
        triple = (c[i], c[i + 21], c[i + 42])
        k = i % 3
        b2, b1, b0 = triple[k:] + triple[:k]
        encoded.append(_b64_24bit(b2, b1, b0, 4))
    encoded.append(_b64_24bit(0, 0, c[63], 2))
    prefix = "$6$" + (f"rounds={n_rounds}$" if rounds is not None else "")
    return f"{prefix}{s.decode()}${''.join(encoded)}"


def _atomic_write(path: str | os.PathLike, data: str, mode: int, gid: int = -1) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, mode)
        if gid != -1:
            os.fchown(fd, -1, gid)
        with os.fdopen(fd, "w") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_htpasswd(path: str | os.PathLike, user: str, password: str, group: str | None = None) -> None:
    """Write a one-user htpasswd file nginx's auth_basic accepts, mode 0640.

    The file is group-owned by `group` (default: the nginx worker user's group, when this
    runs as root) so that the workers, which read it on every request, can open it.
    """
    if not user or any(ch in user for ch in ":\r\n") or not user.isprintable():
        raise ValueError("admin user name must be non-empty, printable and without ':'")
    if not password or any(ch in password for ch in "\r\n"):
        raise ValueError("admin password must be non-empty and on one line")
    gid = -1
    if os.geteuid() == 0:
        name = group or default_worker_user()
        try:
            gid = grp.getgrnam(name).gr_gid
        except KeyError:
            gid = pwd.getpwnam(name).pw_gid
    _atomic_write(path, f"{user}:{sha512_crypt(password)}\n", 0o640, gid)


def site_config(stage: str, api_url: str = "", api_base: str = "/api", admin_base: str = "/admin-api") -> dict:
    """The config.json the dashboard fetches at start-up."""
    return {"apiBase": api_base, "adminBase": admin_base, "stage": stage, "apiUrl": api_url}


def write_site_config(path: str | os.PathLike, stage: str, api_url: str = "", **kwargs) -> None:
    _atomic_write(path, json.dumps(site_config(stage, api_url, **kwargs), indent=2) + "\n", 0o644)


def write_nginx_conf(path: str | os.PathLike, values: dict, template: str | None = None) -> None:
    """Render and write nginx.conf, mode 0600 (it holds the API key; the root master reads it)."""
    _atomic_write(path, render_nginx_conf(values, template), 0o600)


def _parse_pairs(pairs: list[str]) -> dict:
    values = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"render.py: expected KEY=VALUE, got {pair!r}")
        if value.startswith("@"):
            value = Path(value[1:]).read_text().strip()
        values[key] = value
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="write the rendered nginx.conf here (mode 0600)")
    parser.add_argument("--template", default=str(TEMPLATE_PATH), help="template to render (default: %(default)s)")
    parser.add_argument("--htpasswd", help="write an htpasswd file here; the password is read from stdin")
    parser.add_argument("--admin-user", default=DEFAULT_ADMIN_USER, help="htpasswd user (default: %(default)s)")
    parser.add_argument("--admin-password-file", help="read the admin password from this file instead of stdin")
    parser.add_argument("--htpasswd-group", help="group that owns the htpasswd file (default: nginx's worker user)")
    parser.add_argument("--site-config", help="write the dashboard's config.json here")
    parser.add_argument("--stage", default="dev", help="stage name shown by the dashboard (config.json)")
    parser.add_argument("--api-url", default="", help="public API URL shown by the dashboard (config.json)")
    parser.add_argument("values", nargs="*", metavar="KEY=VALUE", help="template values; KEY=@FILE reads a file")
    args = parser.parse_args(argv)
    if not (args.out or args.htpasswd or args.site_config):
        parser.error("nothing to do: give --out, --htpasswd and/or --site-config")

    if args.out:
        try:
            write_nginx_conf(args.out, _parse_pairs(args.values), Path(args.template).read_text())
        except (KeyError, ValueError, FileNotFoundError) as exc:
            print(f"render.py: {exc}", file=sys.stderr)
            return 2
    if args.htpasswd:
        if args.admin_password_file:
            password = Path(args.admin_password_file).read_text()
        else:
            password = sys.stdin.read()
        write_htpasswd(args.htpasswd, args.admin_user, password.strip("\r\n"), args.htpasswd_group)
    if args.site_config:
        write_site_config(args.site_config, args.stage, args.api_url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
