"""Stand-in for the AWS CLI: the calls the dashboard's boot and secrets unit make, against files in $STUB_STATE."""

import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stub import STATE, die, log_call, should_fail  # noqa: E402

args = sys.argv[1:]
log_call("aws", args)


def option(name: str) -> str:
    return args[args.index(name) + 1]


command = args[:2]
if command == ["sts", "get-caller-identity"]:
    if should_fail("network"):
        die('Could not connect to the endpoint URL: "https://sts.us-east-1.amazonaws.com/"', 255)
    print("123456789012\tarn:aws:sts::123456789012:assumed-role/instance/i-0123456789abcdef0\tAROAEXAMPLE")
elif command == ["s3", "cp"]:
    if should_fail("s3"):
        die("download failed: Connection reset by peer", 1)
    source, target = args[2], args[3]
    bucket_and_key = source.removeprefix("s3://")
    shutil.copyfile(STATE / "s3" / bucket_and_key, target)
elif command == ["secretsmanager", "get-secret-value"]:
    if should_fail("secrets"):
        die("An error occurred (ThrottlingException) when calling the GetSecretValue operation: Rate exceeded", 254)
    secrets = json.loads((STATE / "secrets.json").read_text())
    secret_id = option("--secret-id")
    if secret_id not in secrets:
        die(f"An error occurred (ResourceNotFoundException): Secrets Manager can't find {secret_id}", 254)
    assert option("--query") == "SecretString" and option("--output") == "text"
    print(secrets[secret_id])
elif command == ["cloudformation", "signal-resource"]:
    signal = {
        "stack": option("--stack-name"),
        "logical_id": option("--logical-resource-id"),
        "unique_id": option("--unique-id"),
        "status": option("--status"),
        "at": time.time(),
    }
    if not 1 <= len(signal["unique_id"]) <= 64:
        die("Parameter validation failed: UniqueId must be 1 to 64 characters", 252)
    with open(STATE / "signals.jsonl", "a") as f:
        f.write(json.dumps(signal) + "\n")
else:
    die(f"aws stub: unexpected command {args}", 2)
