"""The streamed chat proxy: a Function URL in RESPONSE_STREAM mode through the AWS Lambda
Web Adapter, and run.sh serving the app the way the adapter runs it (uvicorn on $PORT):
the first chunk reaches the client before the upstream has finished."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from engram import Config, MemorySettingsUpdate, open_engine
from engram.domain.models import ApiKeyCreate
from shared.devtools.layer_lock import CHAT_STREAM, check_lock, read_lock
from shared.devtools.local_servers import free_port
from shared.devtools.template import ROOT, load_template
from shared.http import create_app
from tests.support.lambda_support import live_server, load_function
from tests.support.upstream_stub import StubUpstream

FUNCTION = load_template().functions()["ChatStreamFunction"]


def test_the_function_url_streams_through_the_web_adapter():
    props = FUNCTION.properties
    assert props["FunctionUrlConfig"]["InvokeMode"] == "RESPONSE_STREAM"
    assert FUNCTION.environment["AWS_LWA_INVOKE_MODE"] == "response_stream"  # must agree
    assert FUNCTION.environment["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/bootstrap"
    assert any("LambdaAdapterLayerX86" in layer.get("Fn::Sub", "") for layer in props["Layers"])
    assert FUNCTION.handler == "run.sh"
    assert os.access(FUNCTION.code_uri / "run.sh", os.X_OK)
    # Timeouts end to end: the upstream gives up before the function, which may run far
    # past API Gateway's 30 s (a Function URL allows 15 min).
    assert float(FUNCTION.environment["ENGRAM_UPSTREAM_TIMEOUT_S"]) < FUNCTION.timeout <= 900
    assert FUNCTION.timeout > 30


def test_uvicorn_is_shipped_with_the_function_from_a_lock_in_pyprojects_range():
    assert check_lock(CHAT_STREAM) == []
    assert {"uvicorn", "click"} <= set(read_lock(FUNCTION.code_uri / "requirements.txt"))


@pytest.fixture
def served(db_url: str):
    with serve(db_url) as found:
        yield found


@contextmanager
def serve(db_url: str, **extra_env: str):
    """run.sh started as the adapter starts it: CodeUri as the working directory, the
    layers on PYTHONPATH (here the checkout), the function's environment, $PORT."""
    engine = open_engine(Config(db_url=db_url))
    key = engine.keys.create(ApiKeyCreate(name="stream"))
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    engine.memories.extract_and_store(key.id, "I always test my Postgres migrations.")
    engine.close()
    port = free_port()
    stub = StubUpstream().__enter__()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "layers" / "engram")]),
        "LAMBDA_TASK_ROOT": str(FUNCTION.code_uri),
        "PORT": str(port),
        "ENGRAM_DB_URL": db_url,
        "ENGRAM_UPSTREAM_BASE_URL": stub.url,
        "ENGRAM_UPSTREAM_TIMEOUT_S": FUNCTION.environment["ENGRAM_UPSTREAM_TIMEOUT_S"],
        "AWS_LAMBDA_FUNCTION_NAME": "ChatStreamFunction",
        **extra_env,
    }
    process = subprocess.Popen(
        ["./run.sh"],
        cwd=FUNCTION.code_uri,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:  # the adapter's readiness check: any answer on /
        try:
            httpx.get(f"{base}/", timeout=1)
            break
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(process.stdout.read().decode()[-3000:]) from None
            time.sleep(0.2)
    try:
        yield base, key.secret, stub
    finally:
        process.terminate()
        process.wait(timeout=10)
        stub.__exit__(None, None, None)


def test_run_sh_streams_the_first_chunk_before_the_upstream_finishes(served):
    base, secret, stub = served
    stub.gate = threading.Event()  # the upstream holds the rest of its answer
    question = "What should I do before pushing Postgres migrations?"
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": question}]}
    headers = {"Authorization": f"Bearer {secret}"}
    started = time.monotonic()
    with (
        httpx.Client(timeout=20) as client,
        client.stream("POST", f"{base}/v1/chat/completions", json=body, headers=headers) as r,
    ):
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        chunks = r.iter_raw()
        first = next(chunks)
        # The stub holds its answer up to 10 s on the gate: a buffered reply would come
        # after that, whole. The first chunk comes alone, while the upstream still waits.
        assert time.monotonic() - started < 5
        assert first.startswith(b"data: ") and b"Noted" in first and b"[DONE]" not in first
        assert not stub.gate.is_set()
        stub.gate.set()
        rest = b"".join(chunks)
    assert rest.endswith(b"data: [DONE]\n\n")
    injected = stub.requests[0]["json"]["messages"][0]
    assert injected["role"] == "system" and "Postgres" in injected["content"]  # memory on


def test_run_sh_keeps_the_bearer_key_check(served):
    base, _, _ = served
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    response = httpx.post(f"{base}/v1/chat/completions", json=body, timeout=10)
    assert response.status_code == 401


def test_each_request_is_traced_under_the_invocation_the_adapter_forwards(db_url):
    """Tracing on as in Lambda: the adapter forwards the invocation's trace id as a
    header (the process never sees ``_X_AMZN_TRACE_ID`` change); the request's
    subsegment, with the upstream call nested in it, reaches the X-Ray daemon (a UDP
    socket of the test's own) under that trace."""
    daemon = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    daemon.bind(("127.0.0.1", 0))
    daemon.settimeout(10)
    trace = "1-5759e988-bd862e3fe1be46a994272793"
    with (
        daemon,
        serve(
            db_url,
            POWERTOOLS_TRACE_DISABLED="false",
            AWS_XRAY_DAEMON_ADDRESS=f"127.0.0.1:{daemon.getsockname()[1]}",
            AWS_XRAY_CONTEXT_MISSING="LOG_ERROR",
            AWS_DEFAULT_REGION="eu-west-1",
        ) as (base, secret, _),
    ):
        body = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
        response = httpx.post(
            f"{base}/v1/chat/completions",
            json=body,
            headers={
                "Authorization": f"Bearer {secret}",
                "x-amzn-trace-id": f"Root={trace};Parent=53995c3f42cd8ad8;Sampled=1",
            },
            timeout=20,
        )
        assert response.status_code == 200
        documents = []  # Powertools sends each subsegment as it ends, children first
        while not any(d["name"] == "## /v1/chat/completions" for d in documents):
            header, _, document = daemon.recv(65536).decode().partition("\n")
            assert json.loads(header)["format"] == "json"
            documents.append(json.loads(document))
    request = documents[-1]
    assert request["trace_id"] == trace
    assert request["annotations"]["method"] == "POST"
    nested = [d for d in documents if d.get("parent_id") == request["id"]]
    assert any(d["name"] == "127.0.0.1" for d in nested)  # the upstream call (httpx)


def test_a_buffered_answer_is_sent_only_once_its_job_is_queued(db_url):
    """Behind the Web Adapter the invocation ends with the response and the sandbox may
    freeze: nothing may be left to run after it. The function's app queues a buffered
    (non-streamed) answer's extraction job before sending the answer; an app without
    the option (Mangum awaits the whole call; locally nothing freezes) queues it after."""
    assert load_function("chat_stream").app.state.web_adapter is True
    with StubUpstream() as stub:
        config = Config(db_url=db_url, ENGRAM_UPSTREAM_BASE_URL=stub.url)
        engine = open_engine(config, jobs="manual")
        try:
            key = engine.keys.create(ApiKeyCreate(name="buffered"))
            engine.settings.update(MemorySettingsUpdate(enabled=True))
            queue = engine.chat.queue
            send, sent = queue.send, []

            def slow_send(job):  # the real queue, reached 0.3 s late and timed
                time.sleep(0.3)
                send(job)
                sent.append(time.monotonic())

            queue.send = slow_send
            body = {"model": "m", "messages": [{"role": "user", "content": "I use Postgres."}]}
            for finish_first in (True, False):
                app = create_app(
                    routers=("chat",),
                    config=config,
                    engine=lambda: engine,
                    web_adapter=finish_first,
                )
                with live_server(app) as base:
                    response = httpx.post(
                        f"{base}/v1/chat/completions",
                        json=body,
                        headers={"Authorization": f"Bearer {key.secret}"},
                        timeout=20,
                    )
                    answered = time.monotonic()
                    assert response.status_code == 200
                    deadline = time.monotonic() + 10
                    while len(sent) < (1 if finish_first else 2):
                        assert time.monotonic() < deadline, "the job was never queued"
                        time.sleep(0.02)
                assert (sent[-1] < answered) is finish_first
            assert queue.pending == 2  # both jobs reached the queue
        finally:
            engine.close()
