"""SQS workers: powertools batch processing with partial failures.

A record that cannot be processed fails alone (``batchItemFailures``): SQS
redelivers it, and after ``maxReceiveCount`` moves it to the dead-letter queue.
Processing is idempotent, so a redelivered record changes nothing twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ValidationError

from engram.domain.errors import log_safe

from .observability import logger, metrics, tracer

__all__ = ["InvalidJob", "parse_job", "sqs_batch_handler"]

M = TypeVar("M", bound=BaseModel)


class InvalidJob(ValueError):
    """A record whose body is not a valid job: it will end in the dead-letter queue."""


def parse_job(record: SQSRecord, model: type[M]) -> M:
    try:
        return model.model_validate_json(record.body)
    except ValidationError as exc:
        # Field locations only: pydantic's message would quote the body (memory content).
        fields = sorted({".".join(str(p) for p in e["loc"]) or "<body>" for e in exc.errors()})
        raise InvalidJob(f"invalid {model.__name__} at {', '.join(fields)}") from None


def sqs_batch_handler(
    record_handler: Callable[[SQSRecord], Any],
    *,
    read_ahead: Callable[[list[SQSRecord]], Any] | None = None,
) -> Callable[[dict[str, Any], LambdaContext], dict[str, Any]]:
    """A Lambda handler for an SQS batch: ``read_ahead`` (when given) sees every record
    first, then ``record_handler`` takes each one; a record fails alone."""
    # With ReportBatchItemFailures, listing every record is the same as failing the batch,
    # without recording a function error for one poison message alone in its batch.
    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)

    @metrics.log_metrics(raise_on_empty_metrics=False)
    @tracer.capture_lambda_handler(capture_response=False)
    @logger.inject_lambda_context
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        if read_ahead is not None:
            try:
                read_ahead([SQSRecord(r) for r in event.get("Records", [])])
            except Exception as exc:  # each record is then handled on its own, as without it
                logger.warning("the batch was not read ahead: %s", log_safe(exc))
        response = process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
        failed = len(response.get("batchItemFailures", []))
        received = len(event.get("Records", []))
        metrics.add_metric(name="RecordsProcessed", unit=MetricUnit.Count, value=received - failed)
        metrics.add_metric(name="RecordsFailed", unit=MetricUnit.Count, value=failed)
        return cast(dict[str, Any], response)

    return cast(Callable[[dict[str, Any], LambdaContext], dict[str, Any]], handler)
