"""Faults injected one at a time: the chat is still answered, nothing stored is lost or
duplicated, and each fault shows in the engine status and the logs.

Real parts fail for real: a stub upstream that breaks, a closed port for an embedder,
a Qdrant server or a database server, a second connection holding the write lock, a
read-only database, and an SQS worker process killed in the middle of a batch (moto).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time

import boto3
import pytest
from fastapi.testclient import TestClient
from moto import mock_aws
from pydantic import SecretStr

from engram import MemorySettingsUpdate, open_engine
from engram.adapters.libsql import Database
from engram.domain.models import ApiKeyCreate, ExtractionJob, MemoryQuery, QdrantSettingsUpdate
from shared.devtools.local_servers import free_port
from shared.http import create_app
from tests.support.http import ADMIN_TOKEN, AUTH
from tests.support.lambda_support import ROOT
from tests.support.upstream_stub import StubUpstream

FACTS = "I prefer TypeScript. I'll use Postgres for this project."
TEXTS = ["I prefer tea.", "I'll use Rust for the CLI.", "I love jazz."]


@pytest.fixture
def stub():
    with StubUpstream() as upstream:
        yield upstream


@pytest.fixture
def config(config, stub):
    return config.model_copy(
        update={
            "upstream_base_url": stub.url,
            "upstream_api_key": SecretStr("sk-upstream"),
            "embedding_api_key": SecretStr("sk-embedding"),
            "upstream_timeout_s": 1.0,
            "admin_token": SecretStr(ADMIN_TOKEN),
            "db_busy_timeout_ms": 300,
        }
    )


@pytest.fixture
def world(engine, config):
    """An app over the engine, an API key, memory on, one stored fact."""
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    key = engine.keys.create(ApiKeyCreate(name="faults"))
    with TestClient(create_app(config=config, engine=lambda: engine)) as client:
        client.post(
            "/api/memory",
            json={"apiKeyId": key.id, "key": "pet", "content": "My cat is named Biscuit"},
            headers=AUTH,
        )
        yield client, key


def chat(client, key, text="What is my cat called?"):
    return client.post(
        "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": text}]},
        headers={"Authorization": f"Bearer {key.secret}"},
    )


def failing(client) -> dict[str, str]:
    status = client.get("/api/memory/engine-status", headers=AUTH).json()
    return {f["component"]: f["error"] for f in status["failures"]}


def stored(engine, owner):
    return sorted(m.content for m in engine.memories.list_page(MemoryQuery(api_key_id=owner)).data)


# -- the upstream ---------------------------------------------------------------------------


def test_upstream_down_slow_broken_or_garbled(world, stub, engine, caplog):
    client, key = world
    before = stored(engine, key.id)
    stub.stop()
    with caplog.at_level(logging.WARNING):
        down = chat(client, key)
    assert down.status_code == 502 and down.json()["error"]["type"] == "upstream_error"
    assert "upstream" in failing(client)
    stub.start()  # a new port: the engine still points at the old one
    assert stored(engine, key.id) == before  # nothing stored was touched


def test_upstream_slow_5xx_and_garbage(world, stub, engine):
    client, key = world
    stub.mode, stub.hang_s = "hang", 3
    assert chat(client, key).status_code == 504
    assert "did not answer" in failing(client)["upstream"]
    stub.mode = "fail"
    failed = chat(client, key)
    assert failed.status_code == 500 and failed.json()["error"]["message"] == "upstream exploded"
    assert failing(client)["upstream"] == "answered 500"
    stub.mode = "garbage"
    garbled = chat(client, key, FACTS)
    assert garbled.status_code == 200 and garbled.text.startswith("<html>")
    assert "upstream" not in failing(client)  # it answered: recovered
    assert engine.queues.extraction.drain() == 1  # the user's facts are still learnt
    assert "TypeScript" in stored(engine, key.id)


# -- memory's own parts ------------------------------------------------------------------------


def test_embedder_down_keeps_keyword_retrieval_and_says_so(world, engine, caplog):
    client, key = world
    engine.settings.update(
        MemorySettingsUpdate(
            embedding_source="remote",
            custom_base_url=f"http://127.0.0.1:{free_port()}/v1",
            custom_model_id="emb",
        )
    )
    with caplog.at_level(logging.WARNING):
        preview = client.post(
            "/api/memory/retrieve-preview",
            json={"apiKeyId": key.id, "query": "cat Biscuit"},
            headers=AUTH,
        ).json()
        answered = chat(client, key)
    assert preview["results"][0]["content"] == "My cat is named Biscuit"
    assert preview["resolution"]["fallback"] is True
    assert preview["resolution"]["degraded"] == ["embedder"]  # a fault, said as one
    assert answered.status_code == 200 and answered.headers["x-engram-memories"] != "0"
    assert "embedder" in failing(client)
    status = client.get("/api/memory/engine-status", headers=AUTH).json()
    assert status["degradedRetrievals"] == 2  # the preview and the chat
    degraded = [r for r in caplog.records if r.getMessage() == "retrieval degraded"]
    assert len(degraded) == 2 and all(r.parts == ["embedder"] for r in degraded)
    assert any("vector search unavailable" in r.getMessage() for r in caplog.records)
    created = client.post(
        "/api/memory", json={"apiKeyId": key.id, "content": "Tea every morning"}, headers=AUTH
    )
    assert created.status_code == 201  # writes do not need the embedder


def test_qdrant_down_falls_back_to_libsql_vectors(world, engine):
    client, key = world
    engine.qdrant.update(
        QdrantSettingsUpdate(enabled=True, host="127.0.0.1", port=free_port(), timeout_ms=500)
    )
    preview = client.post(
        "/api/memory/retrieve-preview",
        json={"apiKeyId": key.id, "query": "cat"},
        headers=AUTH,
    ).json()
    assert chat(client, key).status_code == 200
    assert preview["resolution"]["vectorStore"] in ("libsql", None)
    status = client.get("/api/memory/engine-status", headers=AUTH).json()
    assert status["qdrant"]["healthy"] is False
    assert "vector store qdrant" in failing(client) or "qdrant" in preview["resolution"]["reason"]


def test_a_locked_database_is_503_and_the_chat_still_answers(world, engine, db_path, caplog):
    client, key = world
    before = stored(engine, key.id)
    holder = Database(f"file:{db_path}")
    with holder.transaction():  # another process holds the write lock
        with caplog.at_level(logging.WARNING):
            refused = client.post(
                "/api/memory", json={"apiKeyId": key.id, "content": "blocked"}, headers=AUTH
            )
            answered = chat(client, key)  # about the stored fact: it is read and injected
            taught = chat(client, key, FACTS)  # queues an extraction, which cannot write
        assert refused.status_code == 503
        assert taught.status_code == 200
        assert refused.json()["error"]["type"] == "storage_unavailable"
        assert answered.status_code == 200  # reads go on beside the writer (WAL)
        assert answered.headers["x-engram-memories"] != "0"
        engine.queues.extraction.drain()  # the background write fails, and is recorded
        assert "extraction jobs" in failing(client)
    holder.close()
    assert stored(engine, key.id) == before
    assert not any(r.levelno >= logging.ERROR for r in caplog.records)  # one line, no trace
    created = client.post(
        "/api/memory", json={"apiKeyId": key.id, "content": "unblocked"}, headers=AUTH
    )
    assert created.status_code == 201  # the lock is gone: writes work again


def test_a_read_only_database_serves_reads_and_refuses_writes(world, engine, config, db_path):
    _, key = world
    before = stored(engine, key.id)
    read_only = config.model_copy(update={"db_url": f"file:{db_path}?mode=ro"})
    frozen = open_engine(read_only, jobs="manual")
    with TestClient(create_app(config=read_only, engine=lambda: frozen)) as ro:
        assert ro.get("/api/memory", params={"apiKeyId": key.id}, headers=AUTH).status_code == 200
        refused = ro.post("/api/memory", json={"apiKeyId": key.id, "content": "x"}, headers=AUTH)
        assert refused.status_code == 503
        assert "readonly" in refused.json()["error"]["message"]
        answered = chat(ro, key)
        assert answered.status_code == 200
        assert ro.get("/api/memory/health", headers=AUTH).json()["working"] is False
    frozen.close()
    assert stored(engine, key.id) == before


def test_an_unreachable_database_server_is_503_and_the_process_stays_up(config):
    down = config.model_copy(update={"db_url": f"http://127.0.0.1:{free_port()}"})
    app = create_app(config=down)
    with TestClient(app) as client:
        for _ in range(2):
            response = client.get("/api/memory/health", headers=AUTH)
            assert response.status_code == 503
            assert response.json()["error"]["type"] == "storage_unavailable"


# -- queued work -------------------------------------------------------------------------------

WORKER = """
import json, os, sys
sys.path[:0] = [{root!r}, {layer!r}, {function!r}]
import app
from engram import build_engine
jobs = build_engine(app.config).jobs
real, calls = jobs.extraction, []
def dying(job):
    calls.append(job)
    if len(calls) == int(os.environ["DIE_AT"]):
        os._exit(9)  # killed in the middle of the batch, as a Lambda timeout would
    return real(job)
jobs.extraction = dying
class Context:
    function_name, memory_limit_in_mb, aws_request_id = "w", 512, "r"
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:w"
print(json.dumps(app.handler(json.load(sys.stdin), Context())))
"""


def test_a_worker_killed_mid_batch_loses_and_duplicates_nothing(tmp_path, engine, config):
    event = {
        "Records": [
            {
                "messageId": f"m{i}",
                "receiptHandle": f"r{i}",
                "body": ExtractionJob(
                    api_key_id="key_w", text=text, request_id=f"chat-{i}"
                ).model_dump_json(),
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:eu-west-1:123456789012:engram-extraction",
                "awsRegion": "eu-west-1",
            }
            for i, text in enumerate(
                ["I prefer tea.", "I'll use Rust for the CLI.", "I love jazz."]
            )
        ]
    }
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")},
        "ENGRAM_DB_URL": config.db_url,
        "AWS_LAMBDA_FUNCTION_NAME": "worker",
        "POWERTOOLS_METRICS_NAMESPACE": "EngramTest",
    }
    script = WORKER.format(
        root=str(ROOT),
        layer=str(ROOT / "layers" / "engram"),
        function=str(ROOT / "functions" / "extraction_worker"),
    )

    def deliver(die_at: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", script],
            input=json.dumps(event),
            env={**env, "DIE_AT": str(die_at)},
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )

    killed = deliver(die_at=2)
    assert killed.returncode == 9  # died during the second record: nothing was reported
    assert stored(engine, "key_w") == ["tea"]  # the first committed with its job id
    redelivered = deliver(die_at=0)  # SQS delivers the whole batch again
    assert redelivered.returncode == 0, redelivered.stderr[-2000:]
    assert json.loads(redelivered.stdout.splitlines()[-1]) == {"batchItemFailures": []}
    assert stored(engine, "key_w") == ["jazz", "tea", "use Rust for the CLI"]  # once each
    again = deliver(die_at=0)  # and a third delivery changes nothing
    assert again.returncode == 0
    assert stored(engine, "key_w") == ["jazz", "tea", "use Rust for the CLI"]


@mock_aws
def test_sqs_redelivery_of_a_processed_job_is_a_no_op(engine, monkeypatch):
    sqs = boto3.client("sqs", region_name="eu-west-1")
    url = sqs.create_queue(QueueName="engram-extraction")["QueueUrl"]
    job = ExtractionJob(api_key_id="key_r", text="I prefer Vim.", request_id="chat-r1")
    for _ in range(2):  # at-least-once delivery: the same message twice
        sqs.send_message(QueueUrl=url, MessageBody=job.model_dump_json())
    outcomes = []
    for message in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]:
        outcomes.append(
            engine.jobs.handle(ExtractionJob.model_validate_json(message["Body"])).duplicate
        )
    assert outcomes == [False, True]
    assert stored(engine, "key_r") == ["Vim"]


def test_a_fault_in_one_request_does_not_stall_the_others(world, stub):
    """A hung upstream holds only its own request: the management API answers meanwhile."""
    client, key = world
    stub.mode, stub.hang_s = "hang", 5
    slow = threading.Thread(target=chat, args=(client, key))
    slow.start()
    while not stub.requests or stub.requests[-1]["json"].get("model") != "m":
        time.sleep(0.01)  # the chat is now waiting on the upstream
    assert client.get("/api/memory/health", headers=AUTH).json()["working"] is True
    assert slow.is_alive()  # answered while the hung request was still waiting
    slow.join()
