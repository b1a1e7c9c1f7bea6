"""Test-wide environment: fake AWS credentials and region, so nothing can reach real AWS."""

import os

os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
        "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
    }
)
os.environ.pop("AWS_PROFILE", None)
