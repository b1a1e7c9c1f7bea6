"""cdk-nag acknowledgements, each on the narrowest construct with a one-line reason."""

from __future__ import annotations

from aws_cdk import Acknowledgment, Validations
from constructs import IConstruct


def acknowledge(construct: IConstruct, rule: str, reason: str) -> None:
    """`rule` is a cdk-nag AwsSolutions id, optionally with its finding, e.g. "IAM5[Resource::*]"."""
    Validations.of(construct).acknowledge(Acknowledgment(id=f"AwsSolutions::AwsSolutions-{rule}", reason=reason))
