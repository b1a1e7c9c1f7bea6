"""`python -m ops preflight|rotate-key|rotate-token-key|rotate-cursor-key|rotate-digest-key|rotate-receipt-key|
revoke-receipt-key|rotate-password|renew-live-key|live-off|live-on --stage STAGE` (see ops/__init__.py)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime

import boto3
from botocore.exceptions import BotoCoreError, ClientError
from cdk_leaderboard.paths import routes

from . import cursor_key, live_key, live_switch
from .outputs import StackNotReady
from .preflight import preflight
from .receipt_key import NothingToRotate, ReceiptKeyRotator, RevocationRefused, require_own_secret
from .rotation import KeyNotHonoured, RefreshFailed, Rotator
from .settings import stack_name, stage_props
from .token_key import RotationRefused, TokenKeyRotator

DEFAULT_GRACE_S = 300


def main(
    argv: list[str] | None = None, session: boto3.Session | None = None, now: Callable[[], datetime] | None = None
) -> int:
    """`now`: the receipt key commands' clock (a local stack's tests give the stack's, which runs ahead)."""
    parser = argparse.ArgumentParser(prog="python -m ops", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("preflight", "check the target account and region before `cdk deploy`"),
        ("rotate-key", "new API key(s): plan, secret, dashboard refresh, old key removed after a grace period"),
        ("rotate-token-key", "new player-token signing key: the old one verifies during the functions' grace"),
        ("rotate-cursor-key", "new page-cursor signing key (production): the old one verifies a cursor's lifetime"),
        ("rotate-digest-key", "refused: the digest key names players' items, so it never rotates (says why)"),
        ("rotate-receipt-key", "new receipt signing key: the old one stays in the JWKS as retired"),
        ("revoke-receipt-key", "a leaked receipt key: listed as revoked, nothing it signed verifies"),
        ("rotate-password", "new dashboard admin password: secret, dashboard refresh"),
        ("renew-live-key", "extend the live updates' API key now (what its 6-hourly schedule does)"),
        ("live-off", "kill switch: no new live subscriptions and no more live events, within seconds, no deploy"),
        ("live-on", "undo live-off: new live subscriptions and events again"),
    ):
        command = commands.add_parser(name, help=text)
        command.add_argument("--stage", default="dev", help="stage in cdk.json (default: %(default)s)")
        if name == "rotate-key":
            command.add_argument(
                "--key", choices=[routes.GAME, routes.ADMIN, "both"], default="both", help="which key (default: both)"
            )
            command.add_argument(
                "--grace-seconds",
                type=float,
                default=DEFAULT_GRACE_S,
                help="how long the old key keeps working (default: %(default)s)",
            )
        if name == "rotate-cursor-key":
            command.add_argument(
                "--force", action="store_true", help="rotate even while the last rotation's grace runs"
            )
        if name == "rotate-token-key":
            command.add_argument(
                "--force", action="store_true", help="rotate even while the last rotation's grace runs"
            )
            command.add_argument(
                "--revoke", action="store_true", help="a leaked key: refuse the old key's tokens at once, no grace"
            )
        if name == "revoke-receipt-key":
            command.add_argument(
                "--kid", required=True, help="the key's id in the JWKS (the current key is rotated out first)"
            )
    args = parser.parse_args(argv)
    if session is None:
        session = boto3.Session()
        if session.region_name is None and os.environ.get("AWS_REGION"):  # the CDK CLI reads it too
            session = boto3.Session(region_name=os.environ["AWS_REGION"])
    try:
        if args.command == "preflight":
            return 0 if preflight(session, stage_props(args.stage)) else 1
        if args.command == "renew-live-key":
            if not stage_props(args.stage).live.enabled:  # Live(enabled=False): the stack has no Event API
                print(f"live updates are off for stage {args.stage}: there is no live API key", file=sys.stderr)
                return 1
            answer = live_key.renew(session, stack_name(args.stage))
            expires = datetime.fromtimestamp(answer["expires"], UTC).isoformat()
            print(f"live API key of {stack_name(args.stage)} renewed: it expires {expires}")
            return 0
        if args.command in ("live-off", "live-on"):
            if not stage_props(args.stage).live.enabled:
                print(f"live updates are off for stage {args.stage}: there is no Event API", file=sys.stderr)
                return 1
            live_switch.switch(session, stack_name(args.stage), off=args.command == "live-off")
            off = args.command == "live-off"
            state = "off: new subscriptions are refused and nothing is published" if off else "on"
            print(f"live updates of {stack_name(args.stage)} are {state} (every function within 10 s)")
            return 0
        if args.command == "rotate-token-key":
            TokenKeyRotator(session, stack_name(args.stage)).rotate(force=args.force, revoke=args.revoke)
            return 0
        if args.command == "rotate-cursor-key":
            cursor_key.require_own_secret(args.stage, stage_props(args.stage).is_prod)
            cursor_key.CursorKeyRotator(session, stack_name(args.stage)).rotate(force=args.force)
            return 0
        if args.command == "rotate-digest-key":
            cursor_key.refuse_digest_rotation()
        if args.command == "rotate-receipt-key":
            require_own_secret(args.stage, stage_props(args.stage).is_prod)
            receipt_key_rotator(session, args.stage, now).rotate()
            return 0
        if args.command == "revoke-receipt-key":
            require_own_secret(args.stage, stage_props(args.stage).is_prod, action="revoke")
            receipt_key_rotator(session, args.stage, now).revoke(args.kid)
            return 0
        rotator = Rotator.for_stack(session, stack_name(args.stage))
        if args.command == "rotate-password":
            rotator.rotate_password()
        else:
            accesses = [routes.GAME, routes.ADMIN] if args.key == "both" else [args.key]
            rotator.rotate_keys(accesses, args.grace_seconds)
        return 0
    except (
        StackNotReady,
        RefreshFailed,
        KeyNotHonoured,
        RotationRefused,
        NothingToRotate,
        RevocationRefused,
        cursor_key.DigestKeyNotRotatable,
        live_key.KeyRenewalFailed,
    ) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except (ClientError, BotoCoreError) as err:
        print(f"error: AWS said: {err}", file=sys.stderr)
        return 1


def receipt_key_rotator(session: boto3.Session, stage: str, now: Callable[[], datetime] | None) -> ReceiptKeyRotator:
    rotator = ReceiptKeyRotator(session, stack_name(stage))
    if now is not None:
        rotator.now = now
    return rotator


if __name__ == "__main__":
    sys.exit(main())
