"""Stand-in for dnf: nginx and logrotate are this machine's own; amazon-cloudwatch-agent "installs" its ctl
stand-in under the sandbox root; failures are scripted."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stub import ROOT, die, log_call, should_fail  # noqa: E402

log_call("dnf", sys.argv[1:])
if should_fail("dnf"):
    die("Error: Failed to download metadata for repo 'amazonlinux': Cannot download repomd.xml", 1)
if "amazon-cloudwatch-agent" in sys.argv:
    ctl = Path(f"{ROOT}/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl")
    ctl.parent.mkdir(parents=True, exist_ok=True)
    if not ctl.exists():
        os.symlink(Path(__file__).resolve().parent / "amazon-cloudwatch-agent-ctl", ctl)
print("Installed:", *[a for a in sys.argv[1:] if not a.startswith("-") and a != "install"])
