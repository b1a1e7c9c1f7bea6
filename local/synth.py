"""Synthesize the stack's CloudFormation template to a JSON file.

Run as a child process (`python -m local.synth OUT STAGE`) so the jsii Node
process that CDK needs lives and dies with it, not with the local stack.
"""

import json
import sys

from local import ROOT


def main(out: str, stage: str) -> None:
    sys.path.insert(0, str(ROOT))
    from stacks.app_builder import build_app

    assembly = build_app(stage, nag=False).synth()  # cdk-nag is for `cdk synth` and tests; same template
    template = assembly.get_stack_by_name(f"leaderboard-{stage}").template
    with open(out, "w") as f:
        json.dump(template, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
