"""The integ-test definition (`make integ` deploys it) synthesizes: the stack under test, and the assertion stack
that calls its API and checks the answers.

The definition runs in this process (runpy, as `python integ_leaderboard.py` would run it, top to bottom): a child
Python would spend its seconds importing aws-cdk-lib and starting a jsii runtime of its own. Its App() has no outdir
(the CLI sets one), so the assembly is read where synth() wrote it."""

from __future__ import annotations

import json
import runpy
import shutil
from pathlib import Path

DEFINITION = Path(__file__).resolve().parent / "integ_leaderboard.py"


def test_integ_definition_synthesizes_its_stack_and_its_assertions():
    definition = runpy.run_path(str(DEFINITION), run_name="__main__")
    out = Path(definition["app"].synth().directory)  # the definition's own synth(): a second call returns it
    try:
        under_test = json.loads((out / "leaderboard-integ.template.json").read_text())
        assert [r for r in under_test["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi"]
        (assert_file,) = out.glob("LeaderboardIntegDefaultTestDeployAssert*.template.json")
        calls = [
            r["Properties"]
            for r in json.loads(assert_file.read_text())["Resources"].values()
            if r["Type"].startswith("Custom::DeployAssert@HttpCall")
        ]
        assert len(calls) == 2
        expected = json.dumps([c["expected"] for c in calls])
        assert '"status":200' in expected.replace(" ", "").replace("\\", "") and "speedrun" in expected
        assert "403" in expected
        manifest = json.loads((out / "manifest.json").read_text())
        assert "leaderboard-integ" in manifest["artifacts"]
    finally:
        shutil.rmtree(out, ignore_errors=True)  # a temporary folder of the CDK's own (no outdir given)
