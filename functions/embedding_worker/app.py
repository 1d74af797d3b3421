"""Embedding worker: SQS batches of memory ids -> vectors stored beside the rows.

Idempotent by construction: only memories still marked ``needs_reindex`` (whose
content has not changed since) are embedded and written.
"""

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from engram import build_engine
from engram.domain.models import EmbeddingJob
from shared.observability import logger
from shared.secrets import load_runtime_config
from shared.workers import parse_job, sqs_batch_handler

config = load_runtime_config()  # secrets read at run time, never from the environment


def record_handler(record: SQSRecord) -> None:
    job = parse_job(record, EmbeddingJob)
    stored = build_engine(config).jobs.embedding(job)
    logger.info("embedding job processed", extra={"request_id": job.request_id, "stored": stored})


handler = sqs_batch_handler(record_handler)
