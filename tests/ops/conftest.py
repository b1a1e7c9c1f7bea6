"""The operator tooling against moto: an account (and a deployed stage) built with the real AWS APIs
(tests/support/account.py)."""

from __future__ import annotations

import boto3
import pytest
from moto import mock_aws

from tests.support.account import REGION, lambda_account_settings


@pytest.fixture
def session(monkeypatch) -> boto3.Session:
    monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", "1000")
    with mock_aws():
        session = boto3.Session(region_name=REGION)
        session.events.register("before-send.lambda.GetAccountSettings", lambda_account_settings)
        yield session
