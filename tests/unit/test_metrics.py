"""The service's EMF metrics: what the handlers print is valid embedded metric format, counts what happened, and
uses the namespace, dimension and metric names that the stack's CloudWatch dashboard reads."""

from __future__ import annotations

import json
import time

import jsonschema
import pytest

from cdk_leaderboard_lambda.domain import entry_store
from cdk_leaderboard_lambda.shared import metrics
from local import invocation
from local.template import synthesized_template
from tests.cloudwatch_dashboard import metric_rows
from tests.support import lambda_api
from tests.support.lambda_api import call

FUNCTION = "leaderboard-dev-ScoreSubmit-AbC123"  # what the Lambda runtime puts in AWS_LAMBDA_FUNCTION_NAME

# CloudWatch's metric units (MetricDatum), which the EMF specification refers to.
UNITS = (
    "Seconds|Microseconds|Milliseconds|Bytes|Kilobytes|Megabytes|Gigabytes|Terabytes|Bits|Kilobits|Megabits|Gigabits"
    "|Terabits|Percent|Count|Bytes/Second|Kilobytes/Second|Megabytes/Second|Gigabytes/Second|Terabytes/Second"
    "|Bits/Second|Kilobits/Second|Megabits/Second|Gigabits/Second|Terabits/Second|Count/Second|None"
).split("|")

# The document structure of "Specification: Embedded metric format" (CloudWatch User Guide): objects it defines
# have no other members; a directive has at most 100 metrics; a dimension set at most 30 keys.
_name = {"type": "string", "minLength": 1, "maxLength": 255}
EMF_STRUCTURE = {
    "type": "object",
    "required": ["_aws"],
    "properties": {
        "_aws": {
            "type": "object",
            "required": ["Timestamp", "CloudWatchMetrics"],
            "additionalProperties": False,
            "properties": {
                "Timestamp": {"type": "integer"},
                "CloudWatchMetrics": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["Namespace", "Dimensions", "Metrics"],
                        "additionalProperties": False,
                        "properties": {
                            "Namespace": _name,
                            "Dimensions": {
                                "type": "array",
                                "minItems": 1,
                                "items": {"type": "array", "maxItems": 30, "items": _name},
                            },
                            "Metrics": {
                                "type": "array",
                                "minItems": 1,
                                "maxItems": 100,
                                "items": {
                                    "type": "object",
                                    "required": ["Name"],
                                    "additionalProperties": False,
                                    "properties": {
                                        "Name": _name,
                                        "Unit": {"enum": UNITS},
                                        "StorageResolution": {"enum": [1, 60]},
                                    },
                                },
                            },
                        },
                    },
                },
            },
        }
    },
}


def assert_valid_emf(doc: dict) -> None:
    """The structure, plus what a schema cannot say: every reference names a member of the root node, dimension
    members are strings, metric members are numbers or arrays of at most 100 numbers, and the timestamp is in ms."""
    jsonschema.validate(doc, EMF_STRUCTURE)
    assert abs(doc["_aws"]["Timestamp"] - time.time() * 1000) < 60_000, "Timestamp must be epoch milliseconds"
    for directive in doc["_aws"]["CloudWatchMetrics"]:
        for dimension_set in directive["Dimensions"]:
            for key in dimension_set:
                assert isinstance(doc.get(key), str), f"dimension {key} must be a string member of the root"
        for definition in directive["Metrics"]:
            value = doc.get(definition["Name"])
            values = value if isinstance(value, list) else [value]
            assert 1 <= len(values) <= 100, f"{definition['Name']}: 1 to 100 values"
            for v in values:
                assert isinstance(v, (int, float)) and not isinstance(v, bool), f"{definition['Name']} must be numeric"


def emf_lines(capsys) -> list[dict]:
    """The EMF documents printed to stdout since the last call, each validated."""
    docs = []
    for line in capsys.readouterr().out.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            doc = json.loads(line)
            assert_valid_emf(doc)
            docs.append(doc)
    return docs


@pytest.fixture
def on_lambda(ddb, monkeypatch, reconfigure):
    """Handlers as on AWS: the runtime names the function, so metrics are printed."""
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", FUNCTION)
    reconfigure()
    invocation.runtime().metrics.documents("")  # nothing left over from another test
    yield
    reconfigure()


def submit(board: str, player: str, score: int) -> int:
    return lambda_api.submit(board, player, score).status


def test_a_submission_prints_one_valid_emf_line_with_its_counts(on_lambda, capsys):
    """One invocation, one document: the submission and its three periods' rank computations."""
    assert submit("global", "p-ada", 4200) == 200
    (doc,) = emf_lines(capsys)
    assert doc[metrics.FUNCTION_DIMENSION] == FUNCTION
    assert doc["board"] == "global"
    assert doc["request_id"] == "req-1"
    assert doc[metrics.SUBMISSIONS] == 1
    assert doc[metrics.RANK_READS] == 3  # all-time, daily and weekly
    assert metrics.WRITE_RETRIES not in doc  # nothing conflicted


def test_every_accepted_entry_of_a_bulk_request_counts(on_lambda, capsys):
    """Refused entries are not submissions."""
    body = {"entries": [{"player_id": "p-a", "score": 1}, {"player_id": "p-b", "score": 2}, {"score": 3}]}
    status, result, _ = call("POST", "/leaderboards/global/scores/bulk", body=body)
    assert status == 200 and result["accepted"] == 2
    (doc,) = emf_lines(capsys)
    assert doc[metrics.SUBMISSIONS] == 2


def test_a_conflicting_write_counts_as_a_retry(on_lambda, capsys, monkeypatch):
    """A write refused because another writer changed the entries first is retried, and counted (the first attempt
    is made to conflict). Keep-best on the default board cannot conflict: an increment board can."""
    status, _, _ = call("POST", "/leaderboards", body={"board_id": "coins", "operator": "increment"})
    assert status == 201
    emf_lines(capsys)
    real = invocation.runtime().entries.write
    attempts = []

    def conflicts_once(*args, **kwargs):
        attempts.append(1)
        if len(attempts) == 1:
            raise entry_store.Changed()
        return real(*args, **kwargs)

    monkeypatch.setattr(invocation.runtime().entries, "write", conflicts_once)
    assert submit("coins", "p-ada", 10) == 200
    (doc,) = emf_lines(capsys)
    assert doc[metrics.WRITE_RETRIES] == 1 and doc[metrics.SUBMISSIONS] == 1


def test_a_failed_invocation_still_flushes_and_leaves_nothing_behind(on_lambda, capsys, monkeypatch):
    """Counts recorded before an unhandled error are printed with that invocation, not with the next one."""

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(invocation.runtime().entries, "count_range", broken)  # inside the rank computation
    assert submit("global", "p-ada", 10) == 500
    (doc,) = emf_lines(capsys)
    assert doc[metrics.SUBMISSIONS] == 1 and doc[metrics.RANK_READS] == 1
    status, _, _ = call("GET", "/leaderboards")
    assert status == 200
    assert emf_lines(capsys) == []  # this invocation counted nothing


def test_nothing_is_printed_outside_lambda(ddb, capsys):
    """Local runs, tests and benchmarks call the same handlers: no runtime, no metric lines, nothing kept."""
    assert invocation.settings().function_name is None
    assert submit("global", "p-ada", 4200) == 200
    assert emf_lines(capsys) == []
    assert invocation.runtime().metrics.documents("x") == []


def test_large_invocations_are_split_within_emf_limits(on_lambda):
    """More than 100 samples of a metric, or more than 100 metrics, become several valid documents."""
    for i in range(250):
        invocation.runtime().metrics.measure("StreamLag", i, metrics.MILLISECONDS, board="b")
    for i in range(120):
        invocation.runtime().metrics.count(f"Metric{i:03d}", board="c")
    docs = invocation.runtime().metrics.documents(FUNCTION)
    for doc in docs:
        assert_valid_emf(doc)
    lag = [doc["StreamLag"] for doc in docs if "StreamLag" in doc]
    assert [len(v) for v in lag] == [100, 100, 50]
    assert sum(v for part in lag for v in part) == sum(range(250))
    counted = [name for doc in docs if doc.get("board") == "c" for name in doc if name.startswith("Metric")]
    assert sorted(counted) == [f"Metric{i:03d}" for i in range(120)]


def test_the_dashboard_reads_what_the_handlers_print(on_lambda, capsys):
    """Same namespace, same dimension, same metric names, for every function of the stack (prod: dev has no
    operations dashboard by default)."""
    stack_template = synthesized_template("prod")
    assert submit("global", "p-ada", 1) == 200
    (doc,) = emf_lines(capsys)
    (directive,) = doc["_aws"]["CloudWatchMetrics"]
    printed = {d["Name"] for d in directive["Metrics"]}
    functions = {k for k, r in stack_template["Resources"].items() if r["Type"] == "AWS::Lambda::Function"}

    ours = [row for row in metric_rows(stack_template) if row[0] == directive["Namespace"]]
    assert ours, f"the dashboard reads nothing in namespace {directive['Namespace']}"
    read: dict[str, set] = {}
    for _namespace, name, dimension, value, *_ in ours:
        assert [dimension] == directive["Dimensions"][0]
        read.setdefault(name, set()).add(value["Ref"])
    assert printed <= set(read)
    assert {metrics.SUBMISSIONS, metrics.RANK_READS, metrics.WRITE_RETRIES} <= set(read)
    for name, refs in read.items():
        # the rank-counter function's own figure, and the period closer's live key renewal, each on its own graph
        if name in (metrics.COUNTER_LAG, metrics.LIVE_KEY_DAYS_LEFT):
            assert len(refs) == 1 and refs < functions
        else:
            assert refs == functions, f"{name} is summed over every function"
