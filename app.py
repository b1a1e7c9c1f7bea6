#!/usr/bin/env python3
"""CDK entry point: `cdk synth -c stage=prod` picks the stage (default dev, see cdk.json)."""

from stacks.app_builder import build_app

build_app().synth()
