"""The functions as Lambda runs them: ``app.handler(event, context)`` with the sample
events, and the same requests through the local server giving the same answers."""

from __future__ import annotations

import base64
import json

import httpx
import pytest

from engram import load_config, open_engine
from shared.http import create_app
from tests.support.lambda_support import LambdaContext, live_server, load_event, load_function

# event file -> (function, expected status)
CASES = {
    "memory_api_create": ("memory_api", 201),
    "memory_api_list": ("memory_api", 200),
    "memory_api_get_missing": ("memory_api", 404),
    "memory_api_unauthorized": ("memory_api", 401),
    "memory_api_invalid_body": ("memory_api", 422),
    "memory_api_malformed_json": ("memory_api", 400),
    "memory_api_health": ("memory_api", 200),
    "memory_api_settings_update": ("memory_api", 200),
    "memory_api_import_ndjson": ("memory_api", 200),
    "memory_api_export": ("memory_api", 200),
    "memory_api_engine_status": ("memory_api", 200),
    "memory_api_keys_create": ("memory_api", 201),
    "memory_api_reindex": ("memory_api", 200),
    "memory_api_forget_dry_run": ("memory_api", 200),
    "memory_api_studio_page": ("memory_api", 200),
    "memory_api_studio_script": ("memory_api", 200),
    "retrieve_preview_query": ("retrieve_preview", 200),
    "retrieve_preview_invalid_scope": ("retrieve_preview", 422),
}
# Answers that differ by construction between two runs (fresh ids, times, secrets).
VOLATILE = {
    "id",
    "createdAt",
    "updatedAt",
    "latencyMs",
    "secret",
    "prefix",
    "lastUsedAt",
    "lastResetAt",
}


def invoke(function: str, event_name: str) -> dict:
    module = load_function(function)
    return module.handler(load_event(event_name), LambdaContext())


def body_of(response: dict) -> bytes:
    raw = response.get("body", "")
    return base64.b64decode(raw) if response.get("isBase64Encoded") else raw.encode()


def scrub(value):
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def comparable(content: bytes, content_type: str):
    if "json" in content_type and content:
        lines = content.decode().splitlines() if "ndjson" in content_type else [content.decode()]
        return [scrub(json.loads(line)) for line in lines]
    return content


def via_http(base_url: str, event: dict) -> httpx.Response:
    body = event.get("body")
    if body is not None and event.get("isBase64Encoded"):
        body = base64.b64decode(body)
    url = f"{base_url}{event['rawPath']}"
    if event.get("rawQueryString"):
        url += "?" + event["rawQueryString"]
    headers = {k: v for k, v in event["headers"].items() if k != "host"}
    return httpx.request(
        event["requestContext"]["http"]["method"], url, headers=headers, content=body
    )


@pytest.mark.parametrize("event_name", sorted(CASES))
def test_handler_answers_each_sample_event(lambda_env, event_name):
    function, status = CASES[event_name]
    if event_name in ("memory_api_list", "memory_api_export", "retrieve_preview_query"):
        invoke("memory_api", "memory_api_create")
    response = invoke(function, event_name)
    assert response["statusCode"] == status, body_of(response)
    if status >= 400:
        assert json.loads(body_of(response))["error"]["message"]


def test_lambda_and_local_server_give_the_same_answers(lambda_env, tmp_path, monkeypatch):
    order = [
        "memory_api_create",
        "memory_api_create",
        "memory_api_import_ndjson",
        "memory_api_list",
        "memory_api_export",
        "memory_api_get_missing",
        "memory_api_unauthorized",
        "memory_api_invalid_body",
        "memory_api_malformed_json",
        "memory_api_settings_update",
        "memory_api_health",
        "memory_api_engine_status",
        "memory_api_keys_create",
        "retrieve_preview_query",
        "retrieve_preview_invalid_scope",
    ]
    through_lambda = []
    for name in order:
        response = invoke(CASES[name][0], name)
        content_type = response.get("headers", {}).get("content-type", "")
        through_lambda.append((response["statusCode"], comparable(body_of(response), content_type)))

    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME")
    monkeypatch.setenv("ENGRAM_DB_URL", f"file:{tmp_path / 'local.db'}")
    config = load_config()
    # Vectors computed as writes happen, as in Lambda (the local stack's worker thread
    # would make the preview depend on how fast it is).
    local = open_engine(config, jobs="inline")
    through_server = []
    with live_server(create_app(config=config, engine=lambda: local)) as base_url:
        for name in order:
            response = via_http(base_url, load_event(name))
            content_type = response.headers.get("content-type", "")
            through_server.append(
                (response.status_code, comparable(response.content, content_type))
            )
    local.close()
    for name, left, right in zip(order, through_lambda, through_server, strict=True):
        assert left == right, name


def test_correlation_id_and_json_logs(lambda_env, capfd):
    invoke("memory_api", "memory_api_create")
    invoke("memory_api", "memory_api_list")
    output = capfd.readouterr().out
    records = [
        json.loads(line)
        for line in output.splitlines()
        if line.startswith("{") and '"level"' in line
    ]
    request_logs = [r for r in records if r.get("message") == "request"]
    assert request_logs
    assert request_logs[0]["correlation_id"] == "JKJaXmPLvHcESHA="
    assert "test-admin-token" not in output  # no secrets
    assert "TypeScript" not in output  # no memory contents


def test_every_event_file_is_used():
    from tests.support.lambda_support import ROOT

    names = {p.stem for p in (ROOT / "events").glob("*.json")}
    # Used by the tests below, test_mcp_lambda.py, test_sqs_pipeline.py and test_maintenance.py.
    assert names == set(CASES) | {
        "mcp_server_initialize",
        "mcp_server_tools_list",
        "mcp_server_tools_call",
        "chat_proxy_completion",
        "extraction_worker_batch",
        "embedding_worker_batch",
        "summarize_schedule_daily",
        "cleanup_schedule_hourly",
        "reindex_schedule_tick",
        "api_authorizer_request",  # test_authorizer.py
    }


def test_chat_proxy_handler_with_the_sample_event(lambda_env, monkeypatch):
    """The chat function end to end in Lambda form: key auth, injection, buffered answer."""
    from engram import Config, MemorySettingsUpdate, open_engine
    from engram.domain.models import ApiKeyCreate
    from tests.support.upstream_stub import StubUpstream

    admin = open_engine(Config(db_url=lambda_env))
    key = admin.keys.create(ApiKeyCreate(name="lambda"))
    admin.settings.update(MemorySettingsUpdate(enabled=True))
    admin.memories.extract_and_store(key.id, "I always test my Postgres migrations before pushing.")
    admin.close()
    event = load_event("chat_proxy_completion")
    event["headers"]["authorization"] = f"Bearer {key.secret}"
    with StubUpstream() as stub:
        monkeypatch.setenv("ENGRAM_UPSTREAM_BASE_URL", stub.url)
        response = load_function("chat_proxy").handler(event, LambdaContext())
        assert response["statusCode"] == 200
        assert json.loads(body_of(response))["choices"][0]["message"]["content"] == stub.reply
        sent = stub.requests[0]["json"]["messages"]
    assert sent[0] == {
        "role": "system",
        "content": "Memory context:\n- pattern: always test my Postgres migrations before pushing",
    }
    assert sent[1] == {"role": "system", "content": "You are terse."}
