"""Turning the FastAPI app into a Lambda handler for API Gateway HTTP API (v2) events."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from fastapi import FastAPI
from mangum import Mangum
from mangum.adapter import DEFAULT_TEXT_MIME_TYPES

from .http.errors import error_body
from .observability import logger, metrics, tracer

__all__ = ["MAX_RESPONSE_BYTES", "http_handler"]

Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]

# Lambda refuses a synchronous response whose JSON (the body escaped or base64-encoded,
# the headers) passes 6 MB, and API Gateway then answers a bare 500. Past this size the
# function answers a 413 that says what to ask for instead (a margin under the cap for the
# runtime's own serialisation).
MAX_RESPONSE_BYTES = 6 * 1024 * 1024 - 64 * 1024
# Exports are NDJSON: sent as text, not base64 (a third larger).
_TEXT_TYPES = [*DEFAULT_TEXT_MIME_TYPES, "application/x-ndjson"]


def _too_large(response: dict[str, Any]) -> dict[str, Any] | None:
    body = response.get("body") or ""
    if len(body) * 12 < MAX_RESPONSE_BYTES:  # even every character escaped (\ud83d\ude00) fits
        return None
    size = len(json.dumps(response))
    if size <= MAX_RESPONSE_BYTES:
        return None
    message = (
        f"the answer is {size} bytes, more than the {MAX_RESPONSE_BYTES} a Lambda response"
        " can carry; ask for less (an export: one key at a time with ?apiKeyId=)"
    )
    return {
        "statusCode": 413,
        "headers": {"content-type": "application/json"},
        "body": json.dumps(error_body(message, "response_too_large")),
        "isBase64Encoded": False,
    }


def http_handler(app: FastAPI) -> Handler:
    """A Lambda handler: JSON logs with the request id as correlation id, EMF metrics.

    Responses are buffered by Mangum (API Gateway has no response streaming here).
    """
    adapter = Mangum(app, lifespan="off", text_mime_types=_TEXT_TYPES)

    @metrics.log_metrics(raise_on_empty_metrics=False)
    @tracer.capture_lambda_handler(capture_response=False)
    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        # Mangum declares its own LambdaContext protocol; the runtime's object satisfies it.
        response: dict[str, Any] = adapter(event, cast(Any, context))
        refused = _too_large(response)
        if refused is not None:
            logger.warning("response too large", extra={"status": response.get("statusCode")})
            metrics.add_metric(name="ResponsesTooLarge", unit=MetricUnit.Count, value=1)
            response = refused
        status = int(response.get("statusCode", 500))
        metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
        if status >= 500:
            metrics.add_metric(name="ServerErrors", unit=MetricUnit.Count, value=1)
        return response

    return cast(Handler, handler)
