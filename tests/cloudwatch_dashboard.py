"""Reads the CloudWatch dashboard of a synthesized template: its body is a Fn::Join of JSON text and references."""

from __future__ import annotations

import json


def dashboard_body(template: dict) -> dict:
    """The stack's one dashboard body as JSON, each reference ({"Ref": ...}, {"Fn::GetAtt": ...}) put back in place."""
    (dashboard,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Dashboard"]
    parts = dashboard["Properties"]["DashboardBody"]["Fn::Join"][1]
    # Every reference sits inside a JSON string: mark it there, parse, then turn the marks back into objects.
    text = "".join(p if isinstance(p, str) else "@@" + json.dumps(p).replace('"', "'") + "@@" for p in parts)

    def restore(value):
        if isinstance(value, str) and value.startswith("@@") and value.endswith("@@"):
            return json.loads(value[2:-2].replace("'", '"'))
        if isinstance(value, list):
            return [restore(v) for v in value]
        if isinstance(value, dict):
            return {k: restore(v) for k, v in value.items()}
        return value

    return restore(json.loads(text))


def metric_rows(template: dict) -> list[list]:
    """Every metric row of every graph: [namespace, name, dimension, value, ..., {options}] or [{expression}]."""
    return [row for w in dashboard_body(template)["widgets"] for row in w["properties"].get("metrics", [])]
