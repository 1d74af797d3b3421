"""Extraction worker: SQS batches of chat exchanges -> facts stored, embeddings requested."""

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from engram import Config, build_engine
from engram.models import ExtractionJob
from shared.observability import logger
from shared.queues import SqsQueue
from shared.workers import parse_job, sqs_batch_handler

config = Config()
embedding_queue = (
    SqsQueue(config.embedding_queue_url, endpoint_url=config.aws_endpoint_url)
    if config.embedding_queue_url
    else None
)


def record_handler(record: SQSRecord) -> None:
    job = parse_job(record, ExtractionJob)
    outcome = build_engine(config).process_extraction(job, embedding_queue)
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
