"""Extraction worker: SQS batches of chat exchanges -> facts stored, embeddings requested."""

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from engram import build_engine
from engram.models import ExtractionJob
from shared.observability import logger
from shared.secrets import load_runtime_config
from shared.workers import parse_job, sqs_batch_handler

config = load_runtime_config()  # secrets read at run time, never from the environment


def record_handler(record: SQSRecord) -> None:
    job = parse_job(record, ExtractionJob)
    outcome = build_engine(config).jobs.extraction(job)
    logger.info(
        "extraction job processed",
        extra={
            "request_id": job.request_id,
            "duplicate": outcome.duplicate,
            "memories_created": len(outcome.created),
            "memories_changed": len(outcome.changed),
        },
    )


handler = sqs_batch_handler(record_handler)
