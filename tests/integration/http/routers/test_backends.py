"""Memory backends end to end: a chat through the proxy with Obsidian (a stand-in of its
Local REST API) or a generic memory API as the primary backend and libSQL as the
fallback; the backend settings' validation; the test endpoint; credentials never
shown or logged."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from engram import Config
from engram.domain.models import ApiKeyCreate, MemoryCreate, MemoryQuery
from shared.http import create_app
from tests.support.backend_servers import MemoryApi, NotionServer, ObsidianServer
from tests.support.http import ADMIN_TOKEN, AUTH, upstream_config
from tests.support.upstream_stub import StubUpstream

OBSIDIAN_KEY = "obsidian-secret-token-1234567890"
GENERIC_KEY = "generic-secret-token-0987654321"
NOTION_KEY = "secret_notion-token-5678901234"


@pytest.fixture
def stub():
    with StubUpstream() as upstream:
        yield upstream


@pytest.fixture
def config(config, stub):
    return upstream_config(config, stub, upstream_timeout_s=5.0)


@pytest.fixture
def vault():
    with ObsidianServer(OBSIDIAN_KEY) as server:
        yield server


@pytest.fixture
def memory_api():
    with MemoryApi(GENERIC_KEY) as server:
        yield server


@pytest.fixture
def notion():
    with NotionServer(NOTION_KEY) as server:
        yield server


@pytest.fixture
def admin(engine):
    config = Config(db_url=engine.config.db_url, admin_token=SecretStr(ADMIN_TOKEN))
    app = create_app(config=config, engine=lambda: engine)
    with TestClient(app, headers=AUTH, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture
def key(engine):
    return engine.keys.create(ApiKeyCreate(name="chat"))


@pytest.fixture
def chat(admin, key):
    # The same app, with the API key instead of the admin token.
    with TestClient(admin.app, headers={"Authorization": f"Bearer {key.secret}"}) as client:
        yield client


def ask(client, text):
    return client.post(
        "/v1/chat/completions",
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]},
    )


def preview(admin, key, query):
    response = admin.post("/api/memory/retrieve-preview", json={"apiKeyId": key.id, "query": query})
    assert response.status_code == 200, response.text
    return response.json()


def injected(stub) -> str:
    first = stub.requests[-1]["json"]["messages"][0]
    return first["content"] if first["role"] == "system" else ""


def remote_primary(name: str, config: dict) -> dict:
    return {
        "enabled": True,
        "storeConversation": False,  # the facts alone: one memory per statement
        "primaryBackend": name,
        "fallbackBackends": ["libsql"],
        "backendConfigs": {name: config},
    }


def stored_texts(kind, vault, memory_api, notion) -> list[str]:
    if kind == "obsidian":
        return list(vault.vault.values())
    if kind == "http":
        return [r["content"] for r in memory_api.records.values()]
    return [
        "".join(p["plain_text"] for p in page["properties"]["Content"]["rich_text"])
        for page in notion.pages.values()
    ]


@pytest.mark.parametrize("kind", ["obsidian", "http", "notion"])
def test_a_chat_stores_facts_in_the_primary_and_falls_back_to_libsql(
    kind, admin, chat, engine, key, stub, vault, memory_api, notion
):
    server, settings = {
        "obsidian": (vault, {"baseUrl": vault.url, "apiKey": OBSIDIAN_KEY, "timeoutMs": 1000}),
        "http": (memory_api, {"baseUrl": memory_api.url, "apiKey": GENERIC_KEY, "timeoutMs": 1000}),
        "notion": (
            notion,
            {
                "baseUrl": notion.url + "/v1",
                "apiKey": NOTION_KEY,
                "databaseId": notion.database_id,
                "timeoutMs": 1000,
            },
        ),
    }[kind]
    # What libSQL holds from before the switch: the fallback's answer when the primary is down.
    engine.memories.create(
        MemoryCreate(api_key_id=key.id, content="I use Postgres for the billing service")
    )
    assert admin.put("/api/settings/memory", json=remote_primary(kind, settings)).status_code == 200

    assert ask(chat, "I prefer TypeScript.").status_code == 200
    assert engine.queues.extraction.drain() == 1
    assert any("TypeScript" in text for text in stored_texts(kind, vault, memory_api, notion))
    assert engine.memories.list_page(MemoryQuery(api_key_id=key.id)).total == 1  # libSQL: unchanged

    # Retrieval reads the fact back from the primary into the prompt.
    answer = ask(chat, "Which programming language do I prefer?")
    assert answer.status_code == 200 and answer.headers["x-engram-memories"] == "1"
    assert "TypeScript" in injected(stub)
    shown = preview(admin, key, "Which programming language do I prefer?")
    assert shown["resolution"]["backend"] == kind
    assert shown["resolution"]["backendFailures"] == []
    assert shown["results"][0]["tier"] == "backend"

    # The primary goes down: the chat still succeeds, answered from what libSQL holds.
    server.stop()
    down = ask(chat, "Which database do I use for billing?")
    assert down.status_code == 200
    assert "Postgres" in injected(stub)
    shown = preview(admin, key, "Which database do I use for billing?")
    resolution = shown["resolution"]
    assert resolution["backend"] == "libsql" and resolution["fallback"] is True
    assert resolution["backendFailures"][0]["backend"] == kind
    assert "unreachable" in resolution["backendFailures"][0]["error"]
    assert f"{kind} failed" in resolution["reason"]
    status = admin.get("/api/memory/engine-status").json()["backends"]
    assert status["primary"] == kind
    primary = next(b for b in status["backends"] if b["name"] == kind)
    assert primary["healthy"] is False and "unreachable" in primary["error"]


def test_without_a_fallback_a_dead_primary_leaves_the_chat_without_memory(
    admin, chat, engine, key, stub, vault
):
    settings = remote_primary("obsidian", {"baseUrl": vault.url, "apiKey": OBSIDIAN_KEY})
    settings["fallbackBackends"] = []
    assert admin.put("/api/settings/memory", json=settings).status_code == 200
    vault.stop()
    response = ask(chat, "Which language do I prefer?")
    assert response.status_code == 200 and response.headers["x-engram-memories"] == "0"
    failed = admin.post(
        "/api/memory/retrieve-preview", json={"apiKeyId": key.id, "query": "language"}
    )
    assert failed.status_code == 503
    assert "every memory backend failed" in failed.json()["error"]["message"]


def test_rest_writes_go_to_the_primary(admin, engine, key, vault):
    settings = remote_primary("obsidian", {"baseUrl": vault.url, "apiKey": OBSIDIAN_KEY})
    admin.put("/api/settings/memory", json=settings)
    created = admin.post("/api/memory", json={"apiKeyId": key.id, "content": "I like jazz"})
    assert created.status_code == 201
    memory_id = created.json()["id"]
    assert f"Engram/{memory_id}.md" in vault.vault
    assert admin.get(f"/api/memory/{memory_id}").json()["content"] == "I like jazz"
    listed = admin.get("/api/memory", params={"apiKeyId": key.id}).json()
    assert [m["id"] for m in listed["data"]] == [memory_id]
    changed = admin.put(f"/api/memory/{memory_id}", json={"content": "I like blues"})
    assert changed.json()["content"] == "I like blues"
    assert admin.delete(f"/api/memory/{memory_id}").status_code == 204
    assert admin.get(f"/api/memory/{memory_id}").status_code == 404
    assert vault.vault == {}


def test_a_secret_in_a_memory_is_redacted_before_it_reaches_the_primary(admin, key, vault):
    admin.put(
        "/api/settings/memory",
        json=remote_primary("obsidian", {"baseUrl": vault.url, "apiKey": OBSIDIAN_KEY}),
    )
    secret = "sk-proj-Abc123Def456Ghi789Jkl012Mno345"
    admin.post("/api/memory", json={"apiKeyId": key.id, "content": f"my key is {secret}"})
    assert vault.vault and all(secret not in text for text in vault.vault.values())


# -- settings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"primaryBackend": "pinecone"}, "primaryBackend"),
        ({"fallbackBackends": ["libsql"]}, "fallbackBackends.0"),
        ({"fallbackBackends": ["nope"]}, "fallbackBackends.0"),
        (
            {
                "primaryBackend": "obsidian",
                "fallbackBackends": ["libsql", "libsql"],
                "backendConfigs": {"obsidian": {"apiKey": "k"}},
            },
            "fallbackBackends.1",
        ),
        ({"primaryBackend": "obsidian"}, "backendConfigs.obsidian.apiKey"),
        (
            {"primaryBackend": "notion", "backendConfigs": {"notion": {"apiKey": "k"}}},
            "backendConfigs.notion.databaseId",
        ),
        ({"primaryBackend": "http"}, "backendConfigs.http.baseUrl"),
        ({"backendConfigs": {"brain": {"baseUrl": "http://x.test"}}}, "backendConfigs.brain.type"),
        (
            {"backendConfigs": {"http": {"baseUrl": "http://169.254.169.254"}}},
            "backendConfigs.http.baseUrl",
        ),
        (
            {"backendConfigs": {"http": {"baseUrl": "http://x.test", "timeoutMs": "soon"}}},
            "backendConfigs.http.timeoutMs",
        ),
    ],
)
def test_bad_backend_settings_are_422_naming_the_field(admin, body, field):
    before = admin.get("/api/settings/memory").json()
    response = admin.put("/api/settings/memory", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["param"] == field
    assert admin.get("/api/settings/memory").json() == before


def test_a_fallback_equal_to_the_primary_is_refused_as_such(admin):
    response = admin.put("/api/settings/memory", json={"fallbackBackends": ["libsql"]})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == "libsql is already the primary backend"


def test_a_custom_name_with_a_type_is_a_backend(admin, memory_api):
    body = {
        "primaryBackend": "brain",
        "fallbackBackends": ["libsql"],
        "backendConfigs": {"brain": {"type": "http", "baseUrl": memory_api.url}},
    }
    assert admin.put("/api/settings/memory", json=body).status_code == 200


def test_the_test_endpoint_probes_a_backend(admin, vault):
    admin.put(
        "/api/settings/memory",
        json={"backendConfigs": {"obsidian": {"baseUrl": vault.url, "apiKey": OBSIDIAN_KEY}}},
    )
    ok = admin.post("/api/settings/backends/obsidian/test").json()
    assert ok["healthy"] is True and ok["role"] == "configured" and ok["latencyMs"] > 0
    vault.stop()
    down = admin.post("/api/settings/backends/obsidian/test")
    assert down.status_code == 200 and down.json()["healthy"] is False
    assert admin.post("/api/settings/backends/nobody/test").status_code == 404
    assert admin.post("/api/settings/backends/libsql/test").json()["healthy"] is True


def test_backend_secrets_are_never_shown_or_logged(admin, chat, engine, key, vault, caplog):
    caplog.set_level(logging.DEBUG)
    config = {
        "baseUrl": vault.url,
        "apiKey": OBSIDIAN_KEY,
        "headers": {"X-Signature": "sig-value-7", "X-Api-Key": "header-secret-value"},
    }
    written = admin.put("/api/settings/memory", json=remote_primary("obsidian", config))
    shown = written.json()["backendConfigs"]["obsidian"]
    assert shown["hasApiKey"] is True and "apiKey" not in shown
    assert "headers" not in shown  # write-only whatever the name (issue 33)
    assert shown["secretHeaders"] == ["X-Api-Key", "X-Signature"]
    # Sent back as read, the stored secrets stay.
    admin.put("/api/settings/memory", json={"backendConfigs": {"obsidian": shown}})
    assert admin.post("/api/settings/backends/obsidian/test").json()["healthy"] is True
    assert vault.requests[-1]["headers"]["X-Api-Key"] == "header-secret-value"
    assert vault.requests[-1]["headers"]["X-Signature"] == "sig-value-7"
    ask(chat, "I prefer TypeScript.")
    engine.queues.extraction.drain()
    vault.stop()
    ask(chat, "Which language do I prefer?")
    texts = [
        admin.get("/api/settings/memory").text,
        admin.get("/api/memory/engine-status").text,
        admin.post("/api/settings/backends/obsidian/test").text,
        admin.post("/api/memory/retrieve-preview", json={"apiKeyId": key.id, "query": "x"}).text,
        caplog.text,
    ]
    for text in texts:
        assert OBSIDIAN_KEY not in text and "header-secret-value" not in text
        assert "sig-value-7" not in text


def test_conversation_turns_go_to_a_remote_primary_too(admin, chat, engine, key, vault):
    settings = remote_primary(
        "obsidian", {"baseUrl": vault.url, "apiKey": OBSIDIAN_KEY, "timeoutMs": 1000}
    )
    settings["storeConversation"] = True
    assert admin.put("/api/settings/memory", json=settings).status_code == 200
    said = "Last week I fixed the brakes of the blue bicycle"
    assert ask(chat, said).status_code == 200
    engine.queues.extraction.drain()
    assert any(said in text for text in vault.vault.values())
    assert engine.memories.list_page(MemoryQuery(api_key_id=key.id)).total == 0  # not libSQL
