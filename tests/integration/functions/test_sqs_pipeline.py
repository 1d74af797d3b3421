"""The queued extraction pipeline on SQS (moto): the worker as Lambda runs it."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from moto import mock_aws

from engram import Config, MemorySettingsUpdate, open_engine, reset_engines
from engram.adapters.queues import SqsQueue
from engram.domain.models import ExtractionJob, MemoryQuery
from tests.support.lambda_support import LambdaContext, load_event, load_function
from tests.support.scripted_llm import scripted_model

REGION = "eu-west-1"


@pytest.fixture
def aws(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws():
        yield boto3.client("sqs", region_name=REGION)


@pytest.fixture
def queues(aws):
    dlq = aws.create_queue(QueueName="engram-extraction-dlq")["QueueUrl"]
    dlq_arn = aws.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    main = aws.create_queue(
        QueueName="engram-extraction",
        Attributes={
            "VisibilityTimeout": "0",  # failed records come straight back (no waiting in tests)
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "2"}),
        },
    )["QueueUrl"]
    embeddings = aws.create_queue(QueueName="engram-embedding")["QueueUrl"]
    return {"main": main, "dlq": dlq, "embeddings": embeddings}


@pytest.fixture
def worker(monkeypatch, db_path, queues):
    monkeypatch.setenv("ENGRAM_DB_URL", f"file:{db_path}")
    monkeypatch.setenv("ENGRAM_EMBEDDING_QUEUE_URL", queues["embeddings"])
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "EngramTest")
    reset_engines()
    yield load_function("extraction_worker")
    reset_engines()


def poll(sqs, url: str, worker) -> dict[str, Any] | None:
    """One round of Lambda's event source mapping: receive, invoke, delete the successes."""
    received = sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"], MessageAttributeNames=["All"]
    ).get("Messages", [])
    if not received:
        return None
    event = {
        "Records": [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": m.get("Attributes", {}),
                "messageAttributes": m.get("MessageAttributes", {}),
                "md5OfBody": m["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": f"arn:aws:sqs:{REGION}:123456789012:engram-extraction",
                "awsRegion": REGION,
            }
            for m in received
        ]
    }
    response = worker.handler(event, LambdaContext())
    failed = {f["itemIdentifier"] for f in response["batchItemFailures"]}
    for m in received:
        if m["MessageId"] not in failed:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return response


def job(request_id="chat-1", text="I prefer TypeScript. I'll use Postgres for this project."):
    return ExtractionJob(api_key_id="key_demo", session_id="s1", text=text, request_id=request_id)


def memories(db_path):
    engine = open_engine(Config(db_url=f"file:{db_path}"))
    try:
        return engine.memories.list_page(MemoryQuery(api_key_id="key_demo")).data
    finally:
        engine.close()


def test_a_job_sent_to_sqs_is_stored_and_embeddings_are_requested(aws, queues, worker, db_path):
    SqsQueue(queues["main"]).send(job())
    assert poll(aws, queues["main"], worker) == {"batchItemFailures": []}
    stored = memories(db_path)
    assert {m.key for m in stored} == {
        "preference:typescript",
        "decision:postgres_for_this_project",
    }
    embed = aws.receive_message(QueueUrl=queues["embeddings"])["Messages"]
    body = json.loads(embed[0]["Body"])
    assert body["kind"] == "embedding"
    assert set(body["memoryIds"]) == {m.id for m in stored}
    assert body["requestId"] == "chat-1.embed"


def test_a_redelivered_job_changes_nothing(aws, queues, worker, db_path):
    sender = SqsQueue(queues["main"])
    sender.send(job())
    poll(aws, queues["main"], worker)
    before = memories(db_path)
    sender.send(job())  # the same request id, delivered again
    assert poll(aws, queues["main"], worker) == {"batchItemFailures": []}
    assert memories(db_path) == before  # same rows, same timestamps
    assert (
        len(
            aws.receive_message(QueueUrl=queues["embeddings"], MaxNumberOfMessages=10).get(
                "Messages", []
            )
        )
        == 1
    )


def test_a_poison_job_fails_alone_and_ends_in_the_dead_letter_queue(aws, queues, worker, db_path):
    aws.send_message(QueueUrl=queues["main"], MessageBody="this is not a job")
    SqsQueue(queues["main"]).send(job())
    first = poll(aws, queues["main"], worker)
    assert len(first["batchItemFailures"]) == 1
    assert len(memories(db_path)) == 2  # the good job in the same batch went through
    assert len(poll(aws, queues["main"], worker)["batchItemFailures"]) == 1  # received twice
    assert poll(aws, queues["main"], worker) is None  # over maxReceiveCount: moved away
    dead = aws.receive_message(QueueUrl=queues["dlq"])["Messages"]
    assert [m["Body"] for m in dead] == ["this is not a job"]


def test_the_sample_batch_event_reports_only_the_bad_record(worker, db_path, capfd):
    event = load_event("extraction_worker_batch")
    response = worker.handler(event, LambdaContext())
    assert response == {"batchItemFailures": [{"itemIdentifier": event["Records"][1]["messageId"]}]}
    assert len(memories(db_path)) == 2
    output = capfd.readouterr().out
    assert "missing owner" not in output  # invalid bodies are not echoed into logs


def test_sqs_send_failure_is_an_engram_error(aws):
    from engram import UnavailableError

    with pytest.raises(UnavailableError):
        SqsQueue("https://sqs.eu-west-1.amazonaws.com/123456789012/missing").send(job())


def test_a_degraded_sqs_costs_a_chat_seconds_not_minutes(aws, queues):
    """The streamed function queues a buffered answer's job before answering: the client
    gives up within seconds (botocore's defaults: 60 s per attempt, several attempts)."""
    client = SqsQueue(queues["main"])._sqs()
    config = client.meta.config
    assert (config.connect_timeout, config.read_timeout) == (2, 3)
    assert config.retries["total_max_attempts"] == 2  # one try and one retry


def test_the_embedding_worker_stores_vectors_for_a_sample_event(monkeypatch, db_path, db):
    from engram.domain.models import MemoryImport

    monkeypatch.setenv("ENGRAM_DB_URL", f"file:{db_path}")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "EngramTest")
    reset_engines()
    engine = open_engine(Config(db_url=f"file:{db_path}"))
    event = load_event("embedding_worker_batch")
    memory_id = json.loads(event["Records"][0]["body"])["memoryIds"][0]
    engine.memories.upsert(
        MemoryImport(id=memory_id, api_key_id="key_demo", key="k", content="I like sushi")
    )
    worker = load_function("embedding_worker")
    assert worker.handler(event, LambdaContext()) == {"batchItemFailures": []}
    assert db.scalar("SELECT needs_reindex FROM memories") == 0
    assert db.scalar("SELECT length(embedding) FROM memories") == 1024
    assert worker.handler(event, LambdaContext()) == {"batchItemFailures": []}  # idempotent
    engine.close()
    reset_engines()


def test_a_batchs_exchanges_of_one_session_are_read_in_one_model_call(
    aws, queues, worker, db_path, monkeypatch
):
    monkeypatch.setenv("ENGRAM_EXTRACTOR_API_KEY", "extractor-secret")
    with scripted_model() as model:
        setup = open_engine(Config(db_url=f"file:{db_path}"))
        setup.settings.update(
            MemorySettingsUpdate.model_validate(
                {"extractor": "llm", "extractorBaseUrl": model.url, "extractorModel": "small"}
            )
        )
        setup.close()
        reset_engines()
        model.script(
            {
                "memories": [
                    {
                        "turn": 0,
                        "action": "add",
                        "category": "pet",
                        "negative": False,
                        "content": "adopted a rescue cat named Biscuit",
                        "when": None,
                        "memory_id": None,
                    },
                    {
                        "turn": 1,
                        "action": "add",
                        "category": "home",
                        "negative": False,
                        "content": "lives in Manchester",
                        "when": None,
                        "memory_id": None,
                    },
                ]
            }
        )
        sender = SqsQueue(queues["main"])
        sender.send(job("chat-1", "We adopted a rescue cat called Biscuit"))
        aws.send_message(QueueUrl=queues["main"], MessageBody="this is not a job")
        sender.send(job("chat-2", "We just moved to Manchester"))
        response = poll(aws, queues["main"], worker)
        assert response is not None and len(response["batchItemFailures"]) == 1  # the poison
        (request,) = model.requests()
        turns = json.loads(request["body"]["messages"][1]["content"])["turns"]
    assert [t["text"] for t in turns] == [
        "We adopted a rescue cat called Biscuit",
        "We just moved to Manchester",
    ]
    assert {m.content for m in memories(db_path)} == {
        "adopted a rescue cat named Biscuit",
        "lives in Manchester",
    }
