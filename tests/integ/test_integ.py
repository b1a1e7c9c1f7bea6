"""The integ-test definition (`make integ` deploys it) synthesizes: the stack under test, and the assertion stack
that calls its API and checks the answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DEFINITION = Path(__file__).resolve().parent / "integ_leaderboard.py"
ROOT = Path(__file__).resolve().parents[2]


def test_integ_definition_synthesizes_its_stack_and_its_assertions(tmp_path):
    env = {**os.environ, "CDK_OUTDIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, str(DEFINITION)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    under_test = json.loads((tmp_path / "leaderboard-integ.template.json").read_text())
    assert [r for r in under_test["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi"]
    (assert_file,) = tmp_path.glob("LeaderboardIntegDefaultTestDeployAssert*.template.json")
    calls = [
        r["Properties"]
        for r in json.loads(assert_file.read_text())["Resources"].values()
        if r["Type"].startswith("Custom::DeployAssert@HttpCall")
    ]
    assert len(calls) == 2
    expected = json.dumps([c["expected"] for c in calls])
    assert '"status":200' in expected.replace(" ", "").replace("\\", "") and "speedrun" in expected
    assert "403" in expected
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert "leaderboard-integ" in manifest["artifacts"]
