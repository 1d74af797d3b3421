"""Extraction worker: SQS batches of chat exchanges -> facts stored, embeddings requested."""

import contextlib

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from engram import build_engine
from engram.domain.models import ExtractionJob
from shared.observability import logger
from shared.secrets import load_runtime_config
from shared.workers import InvalidJob, parse_job, sqs_batch_handler

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


def read_ahead(records: list[SQSRecord]) -> None:
    """The batch's exchanges of one session read in one model call (see engram.app.reading)."""
    jobs = []
    for record in records:
        with contextlib.suppress(InvalidJob):  # failed by record_handler, alone
            jobs.append(parse_job(record, ExtractionJob))
    build_engine(config).jobs.read_ahead(jobs)


handler = sqs_batch_handler(record_handler, read_ahead=read_ahead)
