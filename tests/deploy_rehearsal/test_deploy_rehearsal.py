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
        # public 200, no key 403, game key 200, admin key on the game route 403, CORS preflight 204
        assert len(calls) == 5
        expected = [json.dumps(c["expected"]).replace(" ", "").replace("\\", "") for c in calls]
        assert sorted(e.split('"status":')[1][:3] for e in expected) == ["200", "200", "204", "403", "403"]
        assert any("speedrun" in e for e in expected)
        keyed = [c for c in calls if "x-api-key" in json.dumps(c.get("parameters", c))]
        assert len(keyed) == 2
        manifest = json.loads((out / "manifest.json").read_text())
        assert "leaderboard-integ" in manifest["artifacts"]
    finally:
        shutil.rmtree(out, ignore_errors=True)  # a temporary folder of the CDK's own (no outdir given)
