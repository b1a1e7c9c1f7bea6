"""Bring your own: `existing_vpc`, `existing_scores_table`, `existing_snapshots_table`, `existing_digest_key_secret`.

One app, synthesized once with cdk-nag on and a concrete env, as a user's: stack `games` brings a VPC, both tables
(imported by ARN, as from another account's or team's stack) and the digest key by its complete ARN (a stack
re-created over its retained tables and secret), stack `partial` a VPC, the scores table only and the digest key by
its name. The
default stages' templates (snapshots, stateful ids) are the other tests' business: without `existing_*` nothing
changes (tests/infra/test_snapshot.py, test_stateful_ids.py).
"""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import Validations
from aws_cdk import aws_dynamodb as ddb
from aws_cdk import aws_ec2 as ec2
from cdk_leaderboard import Leaderboard, LeaderboardProps, Monitoring
from cdk_leaderboard.paths import schema
from cdk_leaderboard.tables import _SCORES, _SNAPSHOTS, LeaderboardTables, schema_problems
from cdk_nag import AwsSolutionsChecks

from stacks.app_builder import cdk_json_context
from tests.support import role_access

ACCOUNT, REGION = "111111111111", "us-east-1"
SCORES_ARN = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/game-scores"
SCORES_STREAM_ARN = f"{SCORES_ARN}/stream/2026-01-01T00:00:00.000"
SNAPSHOTS_ARN = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/game-snapshots"
DIGEST_NAME = "LeaderboardApiCursorSecret18C-x7PqR2sTuV9w"  # as CloudFormation names a stack's secret
DIGEST_ARN = f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:{DIGEST_NAME}-AbCdEf"
VPC_ID, SUBNET_ID = "vpc-0123456789abcdef0", "subnet-0123456789abcdef0"
TABLE_STATEMENTS = {
    "ScoresReadWrite",
    "RankIndexQuery",
    "ScoresStreamRead",
    "SnapshotsAppend",
    "SnapshotsRead",
    "SnapshotsErasure",
    "ScoresNoWriteByPublicReads",
}


def _app() -> cdk.App:
    zones = {f"availability-zones:account={ACCOUNT}:region={REGION}": [f"{REGION}a", f"{REGION}b"]}
    return cdk.App(context={**cdk_json_context(), **zones})


def _team_vpc(stack: cdk.Stack) -> ec2.IVpc:
    """A VPC of the team's own, public subnet only (the dashboard then has a public address of its own)."""
    return ec2.Vpc.from_vpc_attributes(
        stack,
        "TeamVpc",
        vpc_id=VPC_ID,
        availability_zones=[f"{REGION}a"],
        public_subnet_ids=[SUBNET_ID],
        public_subnet_route_table_ids=["rtb-0123456789abcdef0"],
    )


def _scores(stack: cdk.Stack) -> ddb.ITable:
    return ddb.Table.from_table_attributes(
        stack, "GameScores", table_arn=SCORES_ARN, table_stream_arn=SCORES_STREAM_ARN
    )


def _scores_table_of_the_app(stack: cdk.Stack, id: str = "AppScores", **changes) -> ddb.Table:
    """A scores table made in the app as the docstring of existing_scores_table says; `changes` spoil it."""
    string = ddb.AttributeType.STRING
    settings = dict(
        partition_key=ddb.Attribute(name=schema.SCORES_PARTITION_KEY, type=string),
        sort_key=ddb.Attribute(name=schema.SCORES_SORT_KEY, type=string),
        stream=ddb.StreamViewType.NEW_AND_OLD_IMAGES,
        time_to_live_attribute=schema.TTL_ATTRIBUTE,
    )
    index = changes.pop("index", True)
    table = ddb.Table(stack, id, **{**settings, **changes})
    if index:
        table.add_global_secondary_index(
            index_name=schema.RANK_INDEX,
            partition_key=ddb.Attribute(name=schema.RANK_INDEX_PARTITION_KEY, type=string),
            sort_key=ddb.Attribute(name=schema.RANK_INDEX_SORT_KEY, type=string),
            projection_type=ddb.ProjectionType.ALL,
        )
    return table


@pytest.fixture(scope="module")
def brought():
    """{stack name: (its Leaderboard, its template)}, plus the app's warnings per stack."""
    app = _app()
    env = cdk.Environment(account=ACCOUNT, region=REGION)
    games = cdk.Stack(app, "games", env=env)
    snapshots = ddb.Table.from_table_arn(games, "GameSnapshots", SNAPSHOTS_ARN)
    boards = {
        "games": Leaderboard(
            games,
            "Leaderboard",
            existing_vpc=_team_vpc(games),
            existing_scores_table=_scores(games),
            existing_snapshots_table=snapshots,
            existing_digest_key_secret=DIGEST_ARN,
            monitoring=Monitoring(level="full"),  # every alarm, the table's too
        ),
    }
    partial = cdk.Stack(app, "partial", env=env)
    boards["partial"] = Leaderboard(
        partial,
        "Leaderboard",
        existing_vpc=_team_vpc(partial),
        existing_scores_table=_scores(partial),
        existing_digest_key_secret=DIGEST_NAME,
        monitoring=Monitoring(),
    )
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    assembly = app.synth()  # raises on any unacknowledged cdk-nag finding
    return {name: (board, assembly.get_stack_by_name(name).template) for name, board in boards.items()}


def _resources(template: dict, kind: str) -> dict[str, dict]:
    return {lid: r for lid, r in template["Resources"].items() if r["Type"] == kind}


def _role_statements(template: dict) -> dict[str, dict]:
    """The functions' one role's statements (inline and attached policies), by statement id."""
    return role_access.by_sid(template)


def test_with_everything_brought_no_table_vpc_or_flow_log_is_made(brought):
    """The games stack makes no table, VPC, subnet, internet gateway or flow log; the instance is in the team's
    subnet."""
    _, template = brought["games"]
    for kind in ("AWS::DynamoDB::Table", "AWS::EC2::VPC", "AWS::EC2::Subnet", "AWS::EC2::InternetGateway"):
        assert not _resources(template, kind), kind
    assert not [lid for lid in template["Resources"] if "FlowLog" in lid]  # neither the flow log nor its log group
    (instance,) = _resources(template, "AWS::EC2::Instance").values()
    (interface,) = instance["Properties"]["NetworkInterfaces"]
    assert interface["SubnetId"] == SUBNET_ID and interface["AssociatePublicIpAddress"] is True


def test_the_role_has_the_same_statements_on_the_given_tables(brought, dev_template_json):
    """Statement for statement the role is the default stage's, but the tables' ARNs are the given ones: the
    table, its rank index by name (never index/*) and its stream."""
    _, template = brought["games"]
    ours, default = _role_statements(template), _role_statements(dev_template_json)
    assert set(ours) == set(default) and TABLE_STATEMENTS <= set(ours)
    assert {sid: s["Action"] for sid, s in ours.items()} == {sid: s["Action"] for sid, s in default.items()}
    assert {sid: ours[sid]["Resource"] for sid in TABLE_STATEMENTS} == {
        "ScoresReadWrite": SCORES_ARN,
        "RankIndexQuery": f"{SCORES_ARN}/index/{schema.RANK_INDEX}",
        "ScoresStreamRead": SCORES_STREAM_ARN,
        "SnapshotsAppend": SNAPSHOTS_ARN,
        "SnapshotsRead": SNAPSHOTS_ARN,
        "SnapshotsErasure": SNAPSHOTS_ARN,
        "ScoresNoWriteByPublicReads": SCORES_ARN,
    }


def test_the_stream_consumers_read_the_given_stream(brought, dev_template_json):
    """Both mappings (rank counters, live broadcaster) read the given table's stream, as many as by default."""
    _, template = brought["games"]
    mappings = _resources(template, "AWS::Lambda::EventSourceMapping").values()
    assert [m["Properties"]["EventSourceArn"] for m in mappings] == [SCORES_STREAM_ARN] * len(
        _resources(dev_template_json, "AWS::Lambda::EventSourceMapping")
    )
    assert len(mappings) == 2


def test_the_functions_and_the_alarms_name_the_given_tables(brought):
    """Every function's environment names the given tables; the alarms on the scores table's metrics stay, on it."""
    _, template = brought["games"]
    variables = [
        f["Properties"]["Environment"]["Variables"] for f in _resources(template, "AWS::Lambda::Function").values()
    ]
    assert variables and all(
        (v["SCORES_TABLE"], v["SNAPSHOTS_TABLE"]) == ("game-scores", "game-snapshots") for v in variables
    )
    dimensions = [
        d
        for a in _resources(template, "AWS::CloudWatch::Alarm").values()
        for d in a["Properties"].get("Dimensions", ())
        if d["Name"] == "TableName"
    ]
    assert dimensions and all(d["Value"] == "game-scores" for d in dimensions)


def test_a_table_not_brought_is_made_with_its_usual_logical_id(brought, dev_template_json):
    """Only the scores table brought: the snapshots table is made, under the logical id deployments have."""
    _, template = brought["partial"]
    made = _resources(template, "AWS::DynamoDB::Table")
    default = {lid for lid in _resources(dev_template_json, "AWS::DynamoDB::Table") if "Snapshots" in lid}
    assert set(made) == default and len(made) == 1


def _function_variables(template: dict) -> list[dict]:
    functions = _resources(template, "AWS::Lambda::Function").values()
    return [f["Properties"]["Environment"]["Variables"] for f in functions if "SCORES_TABLE" in str(f)]


def test_an_adopted_digest_key_is_read_by_every_function_and_none_is_made(brought, dev_template_json):
    """existing_digest_key_secret by its complete ARN: no digest-key secret of the stack's own (the other secrets
    stay); every function reads the adopted one (outside production the receipt key derives from it too), and the
    role may read its current value and nothing else of it."""
    _, template = brought["games"]
    secrets = _resources(template, "AWS::SecretsManager::Secret")
    assert not [lid for lid in secrets if "CursorSecret" in lid]
    default = {lid for lid in _resources(dev_template_json, "AWS::SecretsManager::Secret") if "CursorSecret" not in lid}
    assert {lid[:-8] for lid in secrets} >= {lid[:-8] for lid in default if "Dashboard" not in lid}
    variables = _function_variables(template)
    assert variables and all(v["DIGEST_KEY_SECRET_ARN"] == DIGEST_ARN for v in variables)
    assert all(v["RECEIPT_SIGNING_SECRET_ARN"] == DIGEST_ARN for v in variables)
    statements = _role_statements(template)
    read = statements["DigestKeyRead"]
    assert (read["Action"], read["Resource"]) == ("secretsmanager:GetSecretValue", DIGEST_ARN)
    assert "Condition" not in read  # every function hashes player ids under it
    others = [s for sid, s in statements.items() if sid != "DigestKeyRead"]
    assert DIGEST_NAME not in str(others)  # no other statement names it


def test_an_adopted_digest_key_given_by_name_is_granted_with_its_suffix_wildcard(brought):
    """By name: the functions read it by name (GetSecretValue takes one), and the grant matches the six characters
    Secrets Manager appends to the name, no more."""
    _, template = brought["partial"]
    assert all(v["DIGEST_KEY_SECRET_ARN"] == DIGEST_NAME for v in _function_variables(template))
    resource = _role_statements(template)["DigestKeyRead"]["Resource"]
    assert resource == f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:{DIGEST_NAME}-??????", resource


@pytest.mark.parametrize(
    "given",
    [
        f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:{DIGEST_NAME}",  # partial: no suffix
        f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:",
        "a name with spaces",
        "",
    ],
)
def test_an_adopted_digest_key_must_be_a_complete_arn_or_a_name(given):
    with pytest.raises(ValueError, match="existing_digest_key_secret must be a secret's complete ARN"):
        LeaderboardProps(existing_digest_key_secret=given)


def test_an_adopted_digest_key_comes_from_the_stage_context():
    """A string, so cdk.json can hold it (unlike a table or a VPC)."""
    props = LeaderboardProps.from_context("prod", {"production": True, "existing_digest_key_secret": DIGEST_ARN})
    assert props.existing_digest_key_secret == DIGEST_ARN
    assert LeaderboardProps().existing_digest_key_secret is None


def test_an_existing_vpc_without_the_dashboard_is_an_error():
    """Nothing but the dashboard has a VPC: a VPC given for nothing is a mistake, not a silent no-op."""
    with pytest.raises(ValueError, match="dashboard=False"):
        LeaderboardProps(existing_vpc=_team_vpc(cdk.Stack(_app(), "nodash")), dashboard=False)


def test_a_scores_table_without_its_stream_arn_is_an_error():
    """Imported by name or ARN only, a table has no stream ARN, which the stream consumers need."""
    stack = cdk.Stack(_app(), "nostream")
    with pytest.raises(ValueError, match="table_stream_arn"):
        LeaderboardProps(existing_scores_table=ddb.Table.from_table_name(stack, "Scores", "game-scores"))


def test_existing_props_must_be_constructs_not_names():
    """cdk.json cannot hold a VPC or a table: a string there is refused with the type it must be."""
    with pytest.raises(TypeError, match="existing_scores_table must be a dynamodb.ITable"):
        LeaderboardProps.from_context("x", {"existing_scores_table": "game-scores"})
    with pytest.raises(TypeError, match="existing_vpc must be an ec2.IVpc"):
        LeaderboardProps.from_context("x", {"existing_vpc": VPC_ID})


def test_table_overrides_with_both_tables_brought_are_an_error():
    stack = cdk.Stack(_app(), "overrides")
    with pytest.raises(ValueError, match="table_overrides"):
        LeaderboardProps(
            existing_scores_table=_scores(stack),
            existing_snapshots_table=ddb.Table.from_table_arn(stack, "Snapshots", SNAPSHOTS_ARN),
            table_overrides={"TableClass": "STANDARD_INFREQUENT_ACCESS"},
        )


def test_the_check_passes_the_stacks_own_tables_and_one_made_as_documented():
    """The oracle is the construct's own tables: the schema check finds nothing wrong with them, nor with a table
    made in the app as the prop's docstring says (ALL projected). Imported tables and TableV2s it cannot read."""
    stack = cdk.Stack(_app(), "own")
    own = LeaderboardTables(stack, "Tables", removal_policy=cdk.RemovalPolicy.DESTROY, deletion_protection=False)
    assert schema_problems("scores", own.scores, _SCORES) == []
    assert schema_problems("snapshots", own.snapshots, _SNAPSHOTS) == []
    assert schema_problems("scores", _scores_table_of_the_app(stack), _SCORES) == []
    assert schema_problems("scores", _scores(stack), _SCORES) == []  # imported: nothing synth can see
    key = ddb.Attribute(name=schema.SCORES_PARTITION_KEY, type=ddb.AttributeType.STRING)
    assert schema_problems("scores", ddb.TableV2(stack, "V2", partition_key=key), _SCORES) == []  # not readable


def test_the_check_names_each_thing_a_table_of_the_app_lacks():
    """Keys, the rank index, the stream's view and TTL, each in its own words."""
    stack = cdk.Stack(_app(), "wrong")
    number = ddb.AttributeType.NUMBER
    cases = {
        "key schema is player_id (HASH), not": dict(sort_key=None),
        "no global secondary index 'leaderboard-rank-index'": dict(index=False),
        "stream is NEW_IMAGE, not NEW_AND_OLD_IMAGES": dict(stream=ddb.StreamViewType.NEW_IMAGE),
        "TTL is not on 'expires_at'": dict(time_to_live_attribute="ttl"),
        "player_id must be strings": dict(partition_key=ddb.Attribute(name=schema.SCORES_PARTITION_KEY, type=number)),
    }
    for i, (message, change) in enumerate(cases.items()):
        problems = schema_problems("existing_scores_table", _scores_table_of_the_app(stack, f"T{i}", **change), _SCORES)
        assert len(problems) == 1 and message in problems[0] and problems[0].startswith("existing_scores_table: ")


def test_a_table_of_the_app_with_another_schema_fails_synth():
    """The check runs at synth (once the app has configured its table), and synth fails with its message."""
    app = _app()
    stack = cdk.Stack(app, "spoilt")
    table = _scores_table_of_the_app(stack, stream=ddb.StreamViewType.KEYS_ONLY)
    Leaderboard(
        stack,
        "Leaderboard",
        existing_scores_table=table,
        dashboard=False,
        edge=False,
        monitoring=Monitoring(enabled=False),
    )
    with pytest.raises(Exception, match="existing_scores_table: its stream is KEYS_ONLY, not NEW_AND_OLD_IMAGES"):
        app.synth()


def test_the_docstrings_name_what_the_tables_must_have():
    """The reference (generated from the docstrings) names the schema the check holds tables to."""
    from stacks import config_reference

    docs = config_reference._field_docs(LeaderboardProps)
    for name in (
        schema.SCORES_PARTITION_KEY,
        schema.SCORES_SORT_KEY,
        schema.RANK_INDEX,
        schema.RANK_INDEX_PARTITION_KEY,
        schema.RANK_INDEX_SORT_KEY,
        *schema.RANK_INDEX_PROJECTED,
        schema.TTL_ATTRIBUTE,
        "NEW_AND_OLD_IMAGES",
    ):
        assert name in docs["existing_scores_table"], name
    assert f"`{schema.SNAPSHOTS_PARTITION_KEY}`" in docs["existing_snapshots_table"]
    assert f"`{schema.SNAPSHOTS_SORT_KEY}`" in docs["existing_snapshots_table"]
