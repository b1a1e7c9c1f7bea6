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


def _in_subnet(stack: dict, zone: str = "use1-az1", cidr: str = "10.80.0.64/26", subnet_id: str = "Subnet") -> dict:
    """The stack's instance in a subnet of the template's own VPC (as the dashboard's), the subnet's zone and range
    given (both create-only: a change replaces the subnet)."""
    stack = copy.deepcopy(stack)
    stack["Resources"]["Vpc"] = {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": "10.80.0.0/24"}}
    stack["Resources"][subnet_id] = {
        "Type": "AWS::EC2::Subnet",
        "Properties": {"VpcId": {"Ref": "Vpc"}, "AvailabilityZoneId": zone, "CidrBlock": cidr},
    }
    stack["Resources"]["Instance"]["Properties"]["SubnetId"] = {"Ref": subnet_id}
    return stack


def test_a_subnet_moved_in_the_update_that_replaces_its_vpc_origin_is_refused():
    """The upgrade the zone-ID placement brought: the subnet gets a new zone and range (replaced), so the instance
    and its VPC origin (a new id and name) are replaced too. The old origin's interface is still in the old subnet
    when the cleanup phase deletes it: that delete fails and is skipped, leaving the subnet outside the stack."""
    before = _in_subnet(_stack(), zone=None, cidr="10.80.0.0/26")  # type: ignore[arg-type]
    after = _in_subnet(_stack(origin_id="Origin2", origin_name="dash-b"))
    update = plan(before, after)
    assert (update.changes["Subnet"].action, update.changes["Instance"].action) == ("replace", "replace")
    assert update.changes["Origin"].action == "delete" and update.changes["Origin2"].action == "create"
    assert _refused(before, after) == {"subnet-deleted-under-vpc-origin"}
    ((_, subnet, detail),) = update.refusals()
    assert subnet == "Subnet" and "Origin" in detail


def test_a_subnet_deleted_under_a_vpc_origin_is_refused_under_a_new_logical_id_too():
    """A subnet under a new logical id (the old one deleted in the cleanup) is the same step; so is a subnet deleted
    with its instance and origin (a dashboard turned off: every one of them deleted in one update)."""
    before = _in_subnet(_stack())
    after = _in_subnet(_stack(image="ami-2", origin_id="Origin2", origin_name="dash-b"), subnet_id="Subnet2")
    assert _refused(before, after) == {"subnet-deleted-under-vpc-origin"}
    gone = {"Resources": {}}
    assert _refused(before, gone) == {"subnet-deleted-under-vpc-origin"}


def test_a_kept_subnet_lets_the_vpc_origin_be_replaced():
    """The release's way: the subnet keeps its logical id and properties, the instance and origin are replaced in
    it (the new origin's interface joins the old one's in the same subnet, which is not deleted)."""
    before = _in_subnet(_stack())
    after = _in_subnet(_stack(image="ami-2", origin_id="Origin2", origin_name="dash-b"))
    update = plan(before, after)
    assert "Subnet" not in update.changes and update.changes["Origin"].action == "delete"
    assert not update.refusals()


def test_a_subnet_no_vpc_origin_used_may_go():
    """Without a VPC origin in it, a subnet's replacement is none of this refusal's business."""
    before, after = _in_subnet(_stack(), cidr="10.80.0.0/26"), _in_subnet(_stack())
    for stack in (before, after):
        del stack["Resources"]["Origin"], stack["Resources"]["Distribution"]
    assert plan(before, after).changes["Subnet"].action == "replace"
    assert not _refused(before, after)
