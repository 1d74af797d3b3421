"""Payload limits that are true in Lambda: an import body the platform surely delivers,
refused past it with a 413 naming the limit; an answer Lambda could not return becomes a
413 saying what to ask for instead (not API Gateway's bare 500)."""

from __future__ import annotations

import base64
import json

import pytest

import shared.lambda_http
from engram import Config, open_engine
from engram.domain.models import MemoryCreate
from shared.devtools.template import load_template
from tests.support.lambda_support import LambdaContext, load_event, load_function

LAMBDA_PAYLOAD = 6 * 1024 * 1024  # synchronous request and response, each


def test_the_deployed_import_limit_fits_lambdas_request_once_base64_encoded():
    memory_api = load_template().functions()["MemoryApiFunction"]
    limit = int(memory_api.environment["ENGRAM_MAX_IMPORT_BYTES"])
    headers_and_event = 64 * 1024
    assert limit * 4 / 3 + headers_and_event <= LAMBDA_PAYLOAD
    assert limit >= 4 * 1024 * 1024
    assert Config(max_import_bytes=limit).max_import_bytes == limit


def ndjson_import(lines: int, pad: int = 200) -> dict:
    event = load_event("memory_api_import_ndjson")
    body = "".join(
        json.dumps(
            {"apiKeyId": "key_demo", "key": f"note:{i}", "content": f"note {i} " + "x" * pad}
        )
        + "\n"
        for i in range(lines)
    )
    event["body"] = base64.b64encode(body.encode()).decode()
    event["isBase64Encoded"] = True
    event["headers"]["content-length"] = str(len(body))
    return event


def test_an_import_past_the_limit_is_a_413_naming_it(lambda_env, monkeypatch):
    monkeypatch.setenv("ENGRAM_MAX_IMPORT_BYTES", "4096")
    handler = load_function("memory_api").handler
    small = handler(ndjson_import(5), LambdaContext())
    assert small["statusCode"] == 200, small["body"]
    large = handler(ndjson_import(40), LambdaContext())
    assert large["statusCode"] == 413
    error = json.loads(large["body"])["error"]
    assert error["type"] == "request_too_large" and "4096" in error["message"]


@pytest.fixture
def many_memories(lambda_env):
    engine = open_engine(Config(db_url=lambda_env), jobs="manual")
    for i in range(150):
        engine.memories.create(
            MemoryCreate(api_key_id="key_demo", key=f"note:{i}", content=f"note {i} " + "é" * 300)
        )
    engine.close()


def test_an_export_is_sent_as_text(many_memories):
    response = load_function("memory_api").handler(load_event("memory_api_export"), LambdaContext())
    assert response["statusCode"] == 200
    assert response["isBase64Encoded"] is False  # NDJSON is text: no base64 third
    assert len(response["body"].splitlines()) == 150


def test_an_answer_lambda_could_not_return_is_a_413_saying_what_to_do(many_memories, monkeypatch):
    event = load_event("memory_api_export")
    handler = load_function("memory_api").handler
    exported = handler(event, LambdaContext())
    size = len(json.dumps(exported))  # as the runtime serialises it (é escaped as \\u00e9)
    monkeypatch.setattr(shared.lambda_http, "MAX_RESPONSE_BYTES", size - 1)
    refused = handler(event, LambdaContext())
    assert refused["statusCode"] == 413
    error = json.loads(refused["body"])["error"]
    assert error["type"] == "response_too_large"
    assert str(size) in error["message"] and "apiKeyId" in error["message"]
    monkeypatch.setattr(shared.lambda_http, "MAX_RESPONSE_BYTES", size)
    assert handler(event, LambdaContext())["statusCode"] == 200
