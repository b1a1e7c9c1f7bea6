"""Stand-in for dnf: nginx is already installed on this machine; failures are scripted."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stub import die, log_call, should_fail  # noqa: E402

log_call("dnf", sys.argv[1:])
if should_fail("dnf"):
    die("Error: Failed to download metadata for repo 'amazonlinux': Cannot download repomd.xml", 1)
print("Installed: nginx")
