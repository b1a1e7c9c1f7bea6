"""The season's clock: an EventBridge schedule that runs the period-closer function every few minutes, and the
event bus the closings publish to (see lambda_src/cdk_leaderboard_lambda/operations/closing.py)."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from .paths import limits


class SeasonClosing(Construct):
    """A bus of the stack's own (or the one given) for "Leaderboard Period Closed" events (the game's backend puts
    its rules on it), and the schedule. The shared role gets events:PutEvents on that bus only (a policy of its
    own, attached to the role it is given). `environment`: the bus's name, for the closer and the functions that
    publish closings."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        role: iam.IRole,
        closer: lambda_.IFunction,
        existing_bus: events.IEventBus | None = None,
    ) -> None:
        super().__init__(scope, id)
        # A bus of the user's own (prop existing_event_bus) is used as it is: nothing is made or changed on it.
        self.bus: events.IEventBus = existing_bus or events.EventBus(
            self, "Bus", description="Leaderboard events: periods closed, with their summary"
        )
        iam.Policy(
            self,
            "PutEvents",
            roles=[role],
            statements=[
                iam.PolicyStatement(
                    sid="PeriodClosedEvents", actions=["events:PutEvents"], resources=[self.bus.event_bus_arn]
                )
            ],
        )
        self.environment = {"EVENT_BUS_NAME": self.bus.event_bus_name}
        self.schedule = events.Rule(
            self,
            "Schedule",
            description="Closes the periods that have ended",
            schedule=events.Schedule.rate(Duration.minutes(limits.CLOSE_EVERY_MINUTES)),
            # A failed run is not retried: the next one, minutes later, closes whatever is still open.
            targets=[targets.LambdaFunction(closer, retry_attempts=0)],
        )
