"""cdk-nag acknowledgements, each on the narrowest construct with a one-line reason."""

from __future__ import annotations

from aws_cdk import Acknowledgment, Stack, Token, Validations
from constructs import IConstruct


def acknowledge(construct: IConstruct, rule: str, reason: str) -> None:
    """`rule` is a cdk-nag AwsSolutions id, optionally with its finding, e.g. "IAM5[Resource::*]"."""
    Validations.of(construct).acknowledge(Acknowledgment(id=f"AwsSolutions::AwsSolutions-{rule}", reason=reason))


def arn_prefix(scope: IConstruct, service: str) -> str:
    """ "arn:<partition>:<service>:<region>:<account>" as a finding names them: the pseudo parameters
    (`<AWS::Region>`, ...) in an env-agnostic stack, the real values (`aws`, `us-east-1`, `111111111111`) in a
    stack with a concrete env, which is how the CDK recommends users write their apps (an acknowledgement
    written with the pseudo parameters would not match there)."""
    stack = Stack.of(scope)

    def named(value: str, pseudo: str) -> str:
        return f"<AWS::{pseudo}>" if Token.is_unresolved(value) else value

    return (
        f"arn:{named(stack.partition, 'Partition')}:{service}:{named(stack.region, 'Region')}:"
        f"{named(stack.account, 'AccountId')}"
    )
