"""update_plan, on small hand-written templates: each documented refusal is found, and what is allowed passes."""

from __future__ import annotations

import copy

from tests.infra.update_plan import REFUSALS, plan


def _stack(image: str = "ami-1", origin_id: str = "Origin", origin_name: str = "dash-a") -> dict:
    return {
        "Parameters": {"Ami": {"Type": "AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>", "Default": "/aws/x"}},
        "Resources": {
            "Instance": {"Type": "AWS::EC2::Instance", "Properties": {"ImageId": image, "InstanceType": "t4g.nano"}},
            origin_id: {
                "Type": "AWS::CloudFront::VpcOrigin",
                "Properties": {
                    "VpcOriginEndpointConfig": {
                        "Name": origin_name,
                        "Arn": {"Fn::Join": ["", ["arn:aws:ec2:r:a:instance/", {"Ref": "Instance"}]]},
                    }
                },
            },
            "Distribution": {
                "Type": "AWS::CloudFront::Distribution",
                "Properties": {
                    "DistributionConfig": {
                        "Origins": [{"VpcOriginConfig": {"VpcOriginId": {"Fn::GetAtt": [origin_id, "Id"]}}}]
                    }
                },
            },
        },
    }


def _refused(before: dict, after: dict, **kwargs) -> set[str]:
    return {rid for rid, _, _ in plan(before, after, **kwargs).refusals()}


def test_every_refusal_names_its_sources():
    assert all(entry["what"] and entry["sources"] for entry in REFUSALS.values())


def test_an_instance_replaced_under_a_kept_vpc_origin_is_refused():
    """ImageId is create-only: a new instance id, so the origin's Arn changes in place (409 from CloudFront)."""
    update = plan(_stack(), _stack(image="ami-2"))
    assert update.changes["Instance"].action == "replace"
    assert update.changes["Origin"].action == "update"
    assert _refused(_stack(), _stack(image="ami-2")) == {"vpc-origin-updated-in-use"}


def test_an_in_place_instance_change_leaves_the_vpc_origin_alone():
    after = _stack()
    after["Resources"]["Instance"]["Properties"]["InstanceType"] = "t4g.micro"
    update = plan(_stack(), after)
    assert update.changes["Instance"].action == "update" and "Origin" not in update.changes
    assert not update.refusals()


def test_a_new_vpc_origin_with_a_new_name_is_allowed_and_with_the_old_name_refused():
    assert not _refused(_stack(), _stack(image="ami-2", origin_id="Origin2", origin_name="dash-b"))
    assert _refused(_stack(), _stack(image="ami-2", origin_id="Origin2")) == {"custom-name-taken"}


def test_a_new_ssm_value_replaces_what_refers_to_the_parameter():
    before = _stack(image={"Ref": "Ami"})  # type: ignore[arg-type]
    assert not plan(before, before).changes
    assert _refused(before, before, ssm_changed=True) == {"vpc-origin-updated-in-use"}


def test_a_custom_named_resource_that_needs_replacing_is_refused():
    table = {
        "Type": "AWS::DynamoDB::Table",
        "Properties": {"TableName": "scores", "KeySchema": [{"AttributeName": "a"}]},
    }
    before = {"Resources": {"Table": table}}
    after = copy.deepcopy(before)
    after["Resources"]["Table"]["Properties"]["KeySchema"] = [{"AttributeName": "b"}]
    assert _refused(before, after) == {"custom-name-replaced"}
    after["Resources"]["Table"]["Properties"]["TableName"] = "scores-2"
    assert not _refused(before, after)


def test_two_gsi_changes_in_one_update_are_refused_and_one_is_allowed():
    def table(*indexes: str) -> dict:
        gsis = [
            {"IndexName": i, "KeySchema": [{"AttributeName": i}], "Projection": {"ProjectionType": "ALL"}}
            for i in indexes
        ]
        return {"Resources": {"T": {"Type": "AWS::DynamoDB::Table", "Properties": {"GlobalSecondaryIndexes": gsis}}}}

    assert not _refused(table("a"), table("a", "b"))
    assert _refused(table("a"), table("b")) == {"dynamodb-one-gsi-per-update"}
    assert _refused(table("a"), table("a", "b", "c")) == {"dynamodb-one-gsi-per-update"}


def test_an_updated_launch_template_replaces_the_instance_that_names_its_latest_version():
    """A launch template update makes a new version; the instance's LaunchTemplate (create-only) then changes."""
    before = _stack()
    before["Resources"]["Template"] = {
        "Type": "AWS::EC2::LaunchTemplate",
        "Properties": {"LaunchTemplateData": {"MetadataOptions": {"HttpTokens": "required"}}},
    }
    before["Resources"]["Instance"]["Properties"]["LaunchTemplate"] = {
        "LaunchTemplateId": {"Ref": "Template"},
        "Version": {"Fn::GetAtt": ["Template", "LatestVersionNumber"]},
    }
    after = copy.deepcopy(before)
    after["Resources"]["Template"]["Properties"]["LaunchTemplateData"]["MetadataOptions"]["HttpPutResponseHopLimit"] = 2
    update = plan(before, after)
    assert (update.changes["Template"].action, update.changes["Instance"].action) == ("update", "replace")
    assert _refused(before, after) == {"vpc-origin-updated-in-use"}


def _api(body: dict | None, mode: str | None = None) -> dict:
    properties: dict = {"Name": "api"}
    if body is not None:
        properties["Body"] = body
    if mode is not None:
        properties["Mode"] = mode
    return {"Resources": {"Api": {"Type": "AWS::ApiGateway::RestApi", "Properties": properties}}}


def test_a_rest_api_that_imports_a_document_without_overwrite_is_flagged():
    """Merge (the default for APIs created after March 2021) keeps the methods the document does not define."""
    document = {"openapi": "3.0.3", "paths": {"/a": {}}}
    assert _refused(_api(None), _api(document)) == {"rest-api-body-merged"}
    assert _refused(_api(None), _api(document, "merge")) == {"rest-api-body-merged"}
    assert not _refused(_api(None), _api(document, "overwrite"))
    assert not _refused(_api(document, "overwrite"), _api({"openapi": "3.0.3", "paths": {}}, "overwrite"))
