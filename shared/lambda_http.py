"""Turning the FastAPI app into a Lambda handler for API Gateway HTTP API (v2) events."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from fastapi import FastAPI
from mangum import Mangum

from .observability import logger, metrics, tracer

__all__ = ["http_handler"]

Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


def http_handler(app: FastAPI) -> Handler:
    """A Lambda handler: JSON logs with the request id as correlation id, EMF metrics.

    Responses are buffered by Mangum (API Gateway has no response streaming here).
    """
    adapter = Mangum(app, lifespan="off")

    @metrics.log_metrics(raise_on_empty_metrics=False)
    @tracer.capture_lambda_handler(capture_response=False)
    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        # Mangum declares its own LambdaContext protocol; the runtime's object satisfies it.
        response: dict[str, Any] = adapter(event, cast(Any, context))
        status = int(response.get("statusCode", 500))
        metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
        if status >= 500:
            metrics.add_metric(name="ServerErrors", unit=MetricUnit.Count, value=1)
        return response

    return cast(Handler, handler)
