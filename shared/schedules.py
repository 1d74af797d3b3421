"""EventBridge-scheduled jobs: one handler shape for all of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.data_classes import EventBridgeEvent
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel

from .observability import logger, metrics

__all__ = ["scheduled_handler"]

Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


def scheduled_handler(name: str, job: Callable[[], BaseModel | None]) -> Handler:
    """A handler that runs ``job`` for a scheduled event and returns its result."""

    @metrics.log_metrics(raise_on_empty_metrics=False)
    @logger.inject_lambda_context
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        scheduled = EventBridgeEvent(event)
        result = job()
        body = {"job": name, "skipped": result is None}
        if result is not None:
            body |= result.model_dump(mode="json")
        logger.info("scheduled job done", extra={"rule": scheduled.resources, **body})
        metrics.add_metric(name=f"{name}Runs", unit=MetricUnit.Count, value=1)
        return body

    return cast(Handler, handler)
