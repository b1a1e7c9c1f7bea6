"""Stand-in for amazon-cloudwatch-agent-ctl: `-a fetch-config -m ec2 -c file:PATH` checks that PATH is JSON with
a logs section and keeps it as the agent's configuration (the real one translates it to TOML), as the agent
reads it at every start."""

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stub import ROOT, die, log_call  # noqa: E402

CONFIG = Path(f"{ROOT}/opt/aws/amazon-cloudwatch-agent/etc/amazon-cloudwatch-agent.d/file_config.json")

log_call("amazon-cloudwatch-agent-ctl", sys.argv[1:])
args = sys.argv[1:]
options = dict(zip(args[::2], args[1::2], strict=False))
if options.get("-a") != "fetch-config" or options.get("-m") != "ec2" or not options.get("-c", "").startswith("file:"):
    die(f"amazon-cloudwatch-agent-ctl stub: unexpected {args}", 2)
source = Path(options["-c"].removeprefix("file:"))
try:
    config = json.loads(source.read_text())
except (OSError, ValueError) as exc:
    die(f"E! Invalid JSON config {source}: {exc}", 1)
if "logs_collected" not in config.get("logs", {}):
    die("E! no logs_collected section", 1)
CONFIG.parent.mkdir(parents=True, exist_ok=True)
shutil.copyfile(source, CONFIG)
