"""EventBridge Scheduler jobs: one handler shape for all of them.

EventBridge Scheduler invokes a Lambda target with the schedule's ``Input`` as the
event, nothing else: not an EventBridge event (no ``resources``, no ``detail``). Every
``ScheduleV2`` in ``template.yaml`` sets an ``Input`` that names its job and carries the
scheduler's context attributes (``<aws.scheduler.schedule-arn>`` ...), which the
scheduler replaces before invoking. ``{}`` (a schedule without Input, a manual
``aws lambda invoke``) is accepted too.

The event is checked before the job runs and nothing after the job can fail on the
event's shape: an invocation that raises after doing its work would be retried by
Lambda's asynchronous invocation and run the job again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .observability import logger, metrics, tracer

__all__ = ["InvalidSchedule", "ScheduledInvocation", "scheduled_handler"]

Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


class InvalidSchedule(ValueError):
    """The event is not this function's schedule: raised before the job runs."""


class ScheduledInvocation(BaseModel):
    """A schedule's ``Input`` as EventBridge Scheduler delivers it (``template.yaml``)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    job: str | None = None
    schedule_arn: str | None = Field(None, alias="scheduleArn")
    scheduled_time: str | None = Field(None, alias="scheduledTime")
    execution_id: str | None = Field(None, alias="executionId")
    attempt_number: int | None = Field(None, alias="attemptNumber", ge=1)


def parse_invocation(name: str, event: object) -> ScheduledInvocation:
    try:
        invocation = ScheduledInvocation.model_validate(event)
    except ValidationError as exc:
        fields = sorted({".".join(str(p) for p in e["loc"]) or "<event>" for e in exc.errors()})
        raise InvalidSchedule(f"invalid schedule input at {', '.join(fields)}") from None
    if invocation.job is not None and invocation.job != name:
        raise InvalidSchedule(f"schedule input names job {invocation.job!r}, this is {name!r}")
    return invocation


def scheduled_handler(name: str, job: Callable[[], BaseModel | None]) -> Handler:
    """A handler that runs ``job`` for its schedule's invocation and returns its result."""

    @metrics.log_metrics(raise_on_empty_metrics=False)
    @tracer.capture_lambda_handler(capture_response=False)
    @logger.inject_lambda_context
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        invocation = parse_invocation(name, event)
        result = job()
        body: dict[str, Any] = {"job": name, "skipped": result is None}
        if result is not None:
            body |= result.model_dump(mode="json")
        logger.info(
            "scheduled job done",
            extra={
                "schedule": invocation.schedule_arn,
                "scheduled_time": invocation.scheduled_time,
                "attempt": invocation.attempt_number,
                **body,
            },
        )
        metrics.add_metric(name=f"{name}Runs", unit=MetricUnit.Count, value=1)
        return body

    return cast(Handler, handler)
