"""Each hostile input that once answered 500 or lost data: now a clear 4xx (or, for the
chat, an answer without memory), and stored data intact."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from engram import Config
from shared.http import create_app
from tests.support.http import ADMIN_TOKEN, AUTH

MEMORY = {"apiKeyId": "key_a", "key": "pet", "content": "My cat is named Biscuit"}


def nested(depth: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def raw_json(value: object) -> bytes:
    return json.dumps(value).encode()


def deep_memory(depth: int, key: str = "deep") -> bytes:
    """A memory whose metadata nests ``depth`` objects, written out by hand (json.dumps
    itself cannot encode what this tests)."""
    metadata = b'{"a":' * depth + b"1" + b"}" * depth
    head = json.dumps({**MEMORY, "key": key})[:-1].encode()
    return head + b', "metadata": ' + metadata + b"}"


@pytest.fixture
def seeded(client):
    assert client.post("/api/memory", json=MEMORY).status_code == 201
    return client


def export(client) -> list[dict]:
    response = client.get("/api/memory/export")
    assert response.status_code == 200
    return [json.loads(line) for line in response.text.splitlines()]


# -- 1. metadata that cannot be read back is never written


@pytest.mark.parametrize("depth", [33, 300, 5000])
def test_deep_metadata_is_refused_everywhere_and_nothing_is_saved(seeded, depth):
    body = deep_memory(depth)
    created = seeded.post("/api/memory", content=body, headers={"content-type": "application/json"})
    assert created.status_code in (400, 422)
    assert (
        "deep" in created.json()["error"]["message"]
        or "nested" in created.json()["error"]["message"]
    )
    line = deep_memory(depth, "deep2")
    imported = seeded.post(
        "/api/memory/import", content=line, headers={"content-type": "application/x-ndjson"}
    )
    assert imported.status_code in (400, 422)
    assert [m["key"] for m in export(seeded)] == ["pet"]  # nothing else was written
    assert seeded.get("/api/memory").status_code == 200


def test_metadata_nested_to_the_limit_round_trips(seeded):
    body = {**MEMORY, "key": "ok", "metadata": nested(31)}
    assert seeded.post("/api/memory", json=body).status_code == 201
    assert len(export(seeded)) == 2


# -- 2. bodies are bounded before anything reads them


def test_a_huge_body_is_413_before_authentication(anonymous, app):
    declared = anonymous.post(
        "/api/memory",
        content=b"x",
        headers={"content-length": str(200 * 1024 * 1024), "content-type": "application/json"},
    )
    assert declared.status_code == 413
    streamed = anonymous.post(
        "/api/memory",
        content=iter([b"{" + b" " * (1 << 20)] * 3),  # no length header: counted while read
        headers={"content-type": "application/json"},
    )
    assert streamed.status_code == 413
    assert streamed.json()["error"]["type"] == "request_too_large"


def test_the_chat_and_import_have_their_own_limits(engine):
    config = Config(
        db_url=engine.config.db_url,
        admin_token=SecretStr(ADMIN_TOKEN),
        max_body_bytes=2048,
        max_chat_body_bytes=4096,
    )
    client = TestClient(create_app(config=config, engine=lambda: engine), headers=AUTH)
    big = {**MEMORY, "content": "x" * 3000}
    assert client.post("/api/memory", json=big).status_code == 413
    assert client.post("/api/memory/import", json=[big]).status_code == 200  # 10 MiB limit
    chat = {"model": "m", "messages": [{"role": "user", "content": "y" * 5000}]}
    assert client.post("/v1/chat/completions", json=chat).status_code == 413


# -- 3. the chat proxy never 500s on parseable input


def post_chat(http, raw: bytes):
    return http.post(
        "/v1/chat/completions", content=raw, headers={"content-type": "application/json"}
    )


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        # a text part whose text is not a string: answered, without that part as a query
        (b'{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":5}]}]}', 200),
        (b'{"model":"m","messages":[{"role":"user","content":[{"type":"text"}]}]}', 200),
        (b'{"model":"m","messages":[{"role":"user","content":{"odd":true}}]}', 200),
        # not portable JSON: refused with the reason
        (b'{"model":"m","messages":[{"role":"user","content":"\\ud800"}]}', 400),
        (b'{"model":"m","messages":[{"role":"user","content":NaN}]}', 400),
        (b'{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":Infinity}', 400),
        (b'{"model":"m","messages":[{"role":"user","content":"x"}],"n":' + b"9" * 5000 + b"}", 400),
        (b'{"model":"m","messages":[' + b"[" * 900 + b"]" * 900 + b"]}", 400),
        (b'{"model":"m","messages":' + b"[" * 5000 + b"]" * 5000 + b"}", 400),
    ],
)
def test_hostile_chat_bodies(chat, raw, status, caplog):
    http, stub, _ = chat
    with caplog.at_level(logging.DEBUG):
        response = post_chat(http, raw)
    assert response.status_code == status, response.text
    assert response.json()  # JSON either way: the upstream's answer, or our error
    if status == 400:
        assert response.json()["error"]["type"] == "invalid_json"
        assert not stub.requests  # refused before anything went upstream
    assert "\\ud800" not in caplog.text and "input_value" not in caplog.text


def test_a_lone_surrogate_is_refused_on_every_route(client):
    raw = b'{"apiKeyId":"key_a","content":"\\ud800 half a character"}'
    response = client.post("/api/memory", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert "surrogate" in response.json()["error"]["message"]


# -- 4. imports refuse deep or broken JSON with a 4xx


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        (b"[" * 100_000, "application/json"),
        (b"[" * 100_000, "text/plain"),
        (deep_memory(5000), "application/x-ndjson"),
        (b'{"apiKeyId":"key_a","content":"x","metadata":{"n":NaN}}', "application/x-ndjson"),
    ],
)
def test_hostile_imports_are_4xx(seeded, raw, content_type):
    response = seeded.post(
        "/api/memory/import", content=raw, headers={"content-type": content_type}
    )
    assert 400 <= response.status_code < 500, response.text
    assert [m["key"] for m in export(seeded)] == ["pet"]


# -- 6. NUL never silently truncates


def test_nul_in_content_is_refused_not_truncated(seeded):
    response = seeded.post("/api/memory", json={**MEMORY, "key": "nul", "content": "a\u0000b"})
    assert response.status_code == 422
    assert response.json()["error"]["param"] == "content"
    assert all(m["content"] != "a" for m in export(seeded))


# -- 7. an expired row never shadows a new write


def test_past_expiry_is_refused_and_an_expired_key_starts_afresh(seeded, engine, clock):
    past = {**MEMORY, "key": "temp", "expiresAt": "1969-12-31T23:57:21Z"}
    refused = seeded.post("/api/memory", json=past)
    assert refused.status_code == 422 and refused.json()["error"]["param"] == "expiresAt"
    soon = clock.now.replace(year=clock.now.year + 1).isoformat()
    first = seeded.post("/api/memory", json={**MEMORY, "key": "temp", "expiresAt": soon})
    assert first.status_code == 201
    clock.advance(days=400)  # now it has expired
    again = seeded.post("/api/memory", json={**MEMORY, "key": "temp", "content": "new content"})
    assert again.status_code == 201  # a new memory, not an update of the expired one
    body = again.json()
    assert body["expiresAt"] is None and body["content"] == "new content"
    assert seeded.get(f"/api/memory/{body['id']}").status_code == 200
    assert seeded.get(f"/api/memory/{first.json()['id']}").status_code == 404


# -- 9. what the contract says is what the server does


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"retentionDays": -1}, "retentionDays"),
        ({"retentionDays": 366}, "retentionDays"),
        ({"maxTokens": 99_999}, "maxTokens"),
        ({"maxTokens": -5}, "maxTokens"),
    ],
)
def test_out_of_range_settings_are_refused_not_clamped(client, settings, field):
    before = client.get("/api/settings/memory").json()
    response = client.put("/api/settings/memory", json=settings)
    assert response.status_code == 422
    assert response.json()["error"]["param"] == field
    assert client.get("/api/settings/memory").json() == before


def test_qdrant_operations_when_it_is_off_are_409_with_one_log_line(client, caplog):
    with caplog.at_level(logging.INFO):
        response = client.post("/api/settings/qdrant/search", json={"query": "x"})
    assert response.status_code == 409
    assert "not enabled" in response.json()["error"]["message"]
    assert not any(r.exc_info for r in caplog.records)


def test_an_unexpected_error_is_a_bare_500_logged_without_its_message(engine, caplog):
    config = Config(db_url=engine.config.db_url, admin_token=SecretStr(ADMIN_TOKEN))
    app = create_app(config=config, engine=lambda: engine)

    content = "secret" + " plans"  # so no source line quoted in a traceback holds it

    def explode(*args, **kwargs):
        raise RuntimeError(f"the memory text {content!r} leaked into an exception")

    engine.memories.list_page = explode
    with caplog.at_level(logging.DEBUG), TestClient(app, headers=AUTH) as client:
        response = client.get("/api/memory")
    assert response.status_code == 500
    assert response.json() == {
        "error": {
            "message": "internal error",
            "type": "internal_error",
            "param": None,
            "code": None,
        }
    }
    logged = [r for r in caplog.records if r.getMessage() == "unhandled error"]
    assert len(logged) == 1 and "RuntimeError" in logged[0].error
    assert all("secret plans" not in str(vars(r)) for r in caplog.records)


def test_the_openapi_document_has_its_security_schemes_and_the_chat_schema(app):
    spec = app.openapi()
    schemes = spec["components"]["securitySchemes"]
    assert set(schemes) == {"AdminToken", "ApiKey", "EngramKeyHeader"}
    # The chat's key: a bearer, or its own header (beside a SigV4 signature).
    assert schemes["EngramKeyHeader"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Engram-Api-Key",
        "description": schemes["EngramKeyHeader"]["description"],
    }
    chat = spec["paths"]["/v1/chat/completions"]["post"]
    assert chat["security"] == [{"ApiKey": []}, {"EngramKeyHeader": []}]
    assert "ChatCompletionRequest" in json.dumps(chat["requestBody"])
    create = spec["paths"]["/api/memory"]["post"]
    assert create["security"] == [{"AdminToken": []}]
    assert {"201", "200", "400", "401", "409", "413", "422", "503"} <= set(create["responses"])
    content = spec["components"]["schemas"]["MemoryCreate"]["properties"]["content"]
    assert content["minLength"] == 1 and content["maxLength"] == 8192 and "pattern" in content
    imports = spec["paths"]["/api/memory/import"]["post"]["requestBody"]["content"]
    assert imports["application/json"]["schema"]["minItems"] == 1
    assert "MemoryImport" in spec["components"]["schemas"]
