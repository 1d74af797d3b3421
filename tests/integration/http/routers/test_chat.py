"""The chat proxy end to end, against a real upstream server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import threading

import httpx
import pytest
from fastapi.testclient import TestClient

from engram import MemorySettingsUpdate, open_engine
from engram.domain.models import ApiKeyCreate, MemoryQuery
from shared.devtools.local_servers import free_port
from tests.support.http import ADMIN_TOKEN, proxy_app, upstream_config
from tests.support.lambda_support import live_server
from tests.support.upstream_stub import StubUpstream

FACTS = "I prefer TypeScript. I'll use Postgres for this project."


@pytest.fixture
def stub():
    with StubUpstream() as upstream:
        yield upstream


@pytest.fixture
def config(config, stub):
    """The engine of these tests forwards to the stub upstream."""
    return upstream_config(config, stub, upstream_timeout_s=5.0)


@pytest.fixture
def jobs(engine):
    """The extraction queue, held until the test drains it."""
    return engine.queues.extraction


@pytest.fixture
def engine_with(engine, db):
    """Another engine on the same database, with other upstream settings."""
    opened = []

    def build(**changes):
        config = engine.config.model_copy(update=changes)
        other = open_engine(config, clock=engine.clock, jobs="manual", database=db)
        opened.append(other)
        return other

    yield build
    for other in opened:
        other.close()


@pytest.fixture
def key(engine):
    return engine.keys.create(ApiKeyCreate(name="chat"))


@pytest.fixture
def chat(engine, jobs, stub, key):
    # These tests are about facts; conversation memory (on with memory by default) has
    # its own suite (test_conversation.py), and its turns would be recalled here too.
    engine.settings.update(MemorySettingsUpdate(enabled=True, store_conversation=False))
    app = proxy_app(engine)
    with TestClient(app, headers={"Authorization": f"Bearer {key.secret}"}) as client:
        yield client


def ask(client, text, model="gpt-4o", headers=None, **extra):
    body = {"model": model, "messages": [{"role": "user", "content": text}], **extra}
    return client.post("/v1/chat/completions", json=body, headers=headers or {})


def keys_of(engine, owner):
    return {m.key for m in engine.memories.list_page(MemoryQuery(api_key_id=owner)).data}


def test_remembers_across_requests(chat, stub, jobs, engine, key):
    first = ask(chat, FACTS)
    assert first.status_code == 200
    assert first.json()["choices"][0]["message"]["content"] == stub.reply
    assert stub.requests[0]["json"]["messages"] == [{"role": "user", "content": FACTS}]
    assert stub.requests[0]["headers"]["Authorization"] == "Bearer upstream-secret"
    assert jobs.drain() == 1
    assert keys_of(engine, key.id) == {
        "preference:typescript",
        "decision:postgres_for_this_project",
    }

    second = ask(chat, "Which database should I use?")
    assert second.status_code == 200
    # Only what is relevant goes in: the database decision, not the TypeScript liking.
    assert second.headers["x-engram-memories"] == "1"
    sent = stub.requests[1]["json"]["messages"]
    assert sent[0]["role"] == "system"
    assert sent[0]["content"].split("\n") == [
        "Memory context:",
        "- decision: use Postgres for this project",
    ]
    assert sent[1] == {"role": "user", "content": "Which database should I use?"}


def test_o1_models_get_the_memories_as_the_first_user_message(chat, stub, jobs):
    ask(chat, FACTS)
    jobs.drain()
    ask(chat, "Which database?", model="o1-mini")
    sent = stub.requests[-1]["json"]["messages"]
    assert sent[0]["role"] == "user"
    assert sent[0]["content"].startswith("Memory context:")
    assert all(m["role"] != "system" for m in sent)


def test_opting_out_skips_retrieval_injection_and_extraction(chat, stub, jobs, engine, key):
    ask(chat, FACTS)
    jobs.drain()
    retrievals = engine.memories.stats(key.id).retrievals
    for value in ("true", "1", "YES"):
        response = ask(chat, "I prefer Rust now.", headers={"x-engram-no-memory": value})
        assert response.status_code == 200
        assert stub.requests[-1]["json"]["messages"] == [
            {"role": "user", "content": "I prefer Rust now."}
        ]
        assert response.headers["x-engram-memories"] == "0"
    assert jobs.pending == 0
    assert engine.memories.stats(key.id).retrievals == retrievals
    assert "preference:rust_now" not in keys_of(engine, key.id)


def test_memory_off_forwards_untouched(chat, stub, jobs, engine, key):
    engine.settings.update(MemorySettingsUpdate(enabled=False))
    ask(chat, FACTS)
    assert jobs.pending == 0
    assert stub.requests[-1]["json"]["messages"] == [{"role": "user", "content": FACTS}]


def test_streams_pass_through_and_extraction_follows_the_end(chat, stub, jobs, engine, key):
    with chat.stream(
        "POST",
        "/v1/chat/completions",
        json={"model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": FACTS}]},
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = b"".join(response.iter_bytes())
    assert raw == b"".join(stub.chunks("gpt-4o"))
    assert jobs.pending == 1
    jobs.drain()
    assert "preference:typescript" in keys_of(engine, key.id)


def test_the_local_server_relays_stream_chunks_as_they_arrive(engine, jobs, stub, key):
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    stub.gate = threading.Event()  # the stub holds the rest until we saw the first chunk
    app = proxy_app(engine)
    with live_server(app) as base, httpx.Client(timeout=10) as client:
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        headers = {"Authorization": f"Bearer {key.secret}"}
        with client.stream("POST", f"{base}/v1/chat/completions", json=body, headers=headers) as r:
            chunks = r.iter_raw()
            first = next(chunks)
            assert first.startswith(b"data: ") and b"Noted" in first
            assert jobs.pending == 0  # the stream has not ended yet
            stub.gate.set()
            rest = b"".join(chunks)
    assert rest.endswith(b"data: [DONE]\n\n")
    assert jobs.pending == 1


def test_upstream_errors_pass_through_and_nothing_is_extracted(chat, stub, jobs):
    stub.mode = "fail"
    response = ask(chat, FACTS)
    assert response.status_code == 500
    assert response.json() == {"error": {"message": "upstream exploded", "type": "server_error"}}
    assert jobs.pending == 0


def closed_port_url():
    return f"http://127.0.0.1:{free_port()}/v1"


def test_unreachable_upstream_is_502(engine_with, key):
    app = proxy_app(engine_with(upstream_base_url=closed_port_url()))
    with TestClient(app, headers={"Authorization": f"Bearer {key.secret}"}) as client:
        response = ask(client, "hello")
    assert response.status_code == 502
    assert response.json()["error"]["type"] == "upstream_error"


def test_slow_upstream_is_504(engine_with, stub, key):
    stub.mode, stub.hang_s = "hang", 3
    app = proxy_app(engine_with(upstream_timeout_s=0.5))
    with TestClient(app, headers={"Authorization": f"Bearer {key.secret}"}) as client:
        response = ask(client, "hello")
    assert response.status_code == 504
    assert response.json()["error"]["type"] == "upstream_timeout"


def test_no_upstream_configured_is_503(engine_with, key):
    app = proxy_app(engine_with(upstream_base_url=None))
    with TestClient(app, headers={"Authorization": f"Bearer {key.secret}"}) as client:
        response = ask(client, "hello")
    assert response.status_code == 503
    assert "ENGRAM_UPSTREAM_BASE_URL" in response.json()["error"]["message"]


def test_a_broken_memory_store_never_fails_the_chat(chat, stub, jobs, engine, caplog, db):
    ask(chat, FACTS)  # authenticates (and caches the key) while storage works
    jobs.drain()
    for trigger in ("memory_fts_ai", "memory_fts_ad", "memory_fts_au"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE memories")
    with caplog.at_level(logging.WARNING):
        response = ask(chat, "I prefer Vim. Which database?")
        assert response.status_code == 200
        assert response.headers["x-engram-memories"] == "0"
        assert stub.requests[-1]["json"]["messages"] == [
            {"role": "user", "content": "I prefer Vim. Which database?"}
        ]
        jobs.drain()  # the extraction fails in the background, logged
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "retrieval failed" in messages
    assert "background extraction job" in messages and "failed" in messages


@pytest.mark.parametrize(
    "authorization", [None, "Bearer ", "Bearer egm_not_a_key", "Basic abc", "Bearer key_x"]
)
def test_chat_needs_a_valid_api_key(engine, stub, authorization):
    app = proxy_app(engine)
    headers = {"Authorization": authorization} if authorization else {}
    with TestClient(app) as client:
        response = ask(client, "hello", headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"
    assert stub.requests == []


def test_the_key_may_come_in_its_own_header_beside_a_signature(engine, stub, key):
    """The streamed chat's Function URL takes IAM auth: Authorization is the SigV4
    signature, and the Engram key travels as X-Engram-Api-Key (never forwarded upstream)."""
    app = proxy_app(engine)
    signature = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261204/eu-west-1/lambda/aws4_request"
    with TestClient(app) as client:
        headers = {"Authorization": signature, "X-Engram-Api-Key": key.secret}
        assert ask(client, "hello", headers=headers).status_code == 200
        assert ask(client, "hello", headers={"Authorization": signature}).status_code == 401
        wrong = {"Authorization": signature, "X-Engram-Api-Key": "egm_not_a_key"}
        assert ask(client, "hello", headers=wrong).status_code == 401
    (sent,) = stub.requests
    assert not {k.lower() for k in sent["headers"]} & {"x-engram-api-key"}
    assert key.secret not in str(sent["headers"])


def test_revoked_keys_stop_working(chat, engine, key):
    assert ask(chat, "hello").status_code == 200
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    assert chat.delete(f"/api/keys/{key.id}", headers=admin).status_code == 200
    assert ask(chat, "hello").status_code == 401


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ("not json", 400, None),  # malformed JSON is 400 on every route
        ('["a list"]', 422, None),
        ('{"model": "m"}', 422, "messages"),
        ('{"model": "m", "messages": []}', 422, "messages"),
        ('{"messages": [{"role": "user", "content": "x"}]}', 422, "model"),
    ],
)
def test_bad_chat_bodies_are_4xx(chat, stub, body, status, field):
    response = chat.post(
        "/v1/chat/completions", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == status
    assert response.json()["error"]["param"] == field
    assert stub.requests == []


def test_bad_session_header_is_422(chat, stub):
    response = ask(chat, "hello", headers={"x-engram-session-id": "x" * 200})
    assert response.status_code == 422
    assert response.json()["error"]["param"] == "x-engram-session-id"


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("x-engram-no-memory", "maybe"),
        ("x-engram-injection-mode", "cache-safe"),
        ("x-engram-strategy", "x" * 65),
    ],
)
def test_bad_engram_headers_are_422_naming_the_header(chat, stub, header, value):
    response = ask(chat, "hello", headers={header: value})
    assert response.status_code == 422
    assert response.json()["error"]["param"] == header
    assert stub.requests == []


def test_a_bad_no_memory_flag_is_explained_in_words_not_as_a_pattern(chat, stub):
    response = ask(chat, "hello", headers={"x-engram-no-memory": "maybe"})
    message = response.json()["error"]["message"]
    assert "true, 1 or yes" in message and "false, 0 or no" in message
    assert "^" not in message and "[Tt]" not in message


SYSTEM = {"role": "system", "content": "You are a helpful assistant. Be brief."}


def ask_with_system(client, text, headers=None):
    body = {"model": "gpt-4o", "messages": [SYSTEM, {"role": "user", "content": text}]}
    return client.post("/v1/chat/completions", json=body, headers=headers or {})


def test_cache_safe_injection_reaches_the_upstream(chat, stub, jobs, engine):
    """cacheSafe: exactly one system message upstream, the app's own, the memory block
    merged into it (the prompt prefix the provider caches is unchanged)."""
    ask(chat, FACTS)
    jobs.drain()
    merged = SYSTEM["content"] + "\n\nMemory context:\n- decision: use Postgres for this project"
    # Per request, by header ...
    response = ask_with_system(
        chat, "Which database?", headers={"x-engram-injection-mode": "cacheSafe"}
    )
    assert response.headers["x-engram-memories"] == "1"
    sent = stub.requests[-1]["json"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[0] == {"role": "system", "content": merged}
    # ... the default otherwise: a system message of its own, before the app's ...
    ask_with_system(chat, "Which database?")
    assert [m["role"] for m in stub.requests[-1]["json"]["messages"]] == ["system"] * 2 + ["user"]
    # ... and by setting, which a header can still override.
    engine.settings.update(MemorySettingsUpdate(injection_mode="cacheSafe"))
    ask_with_system(chat, "Which database?")
    assert stub.requests[-1]["json"]["messages"][0] == {"role": "system", "content": merged}
    ask_with_system(chat, "Which database?", headers={"x-engram-injection-mode": "prepend"})
    assert len(stub.requests[-1]["json"]["messages"]) == 3


def test_strategy_header_means_what_the_setting_means(chat, stub, jobs, engine, key):
    ask(chat, FACTS)
    jobs.drain()
    # A query matching nothing: hybrid injects nothing (relevance floor), exact (what
    # "recent" means) injects the newest memories whatever the query.
    assert ask(chat, "Tell me a joke").headers["x-engram-memories"] == "0"
    recent = ask(chat, "Tell me a joke", headers={"x-engram-strategy": "recent"})
    assert recent.headers["x-engram-memories"] == "2"
    engine.settings.update(MemorySettingsUpdate.model_validate({"strategy": "recent"}))
    assert ask(chat, "Tell me a joke").headers["x-engram-memories"] == "2"
    unknown = ask(chat, "Tell me a joke", headers={"x-engram-strategy": "magic"})
    assert unknown.headers["x-engram-memories"] == "0"  # unknown = hybrid, as in settings


def test_session_header_scopes_the_stored_memories(chat, jobs, engine, key):
    ask(chat, FACTS, headers={"x-engram-session-id": "conv-1"})
    jobs.drain()
    stored = engine.memories.list_page(MemoryQuery(api_key_id=key.id)).data
    assert {m.session_id for m in stored} == {"conv-1"}


def test_models_are_passed_through(chat):
    response = chat.get("/v1/models")
    assert response.status_code == 200
    assert response.json()["data"] == [{"id": "stub-model"}]


def test_provider_resolution():
    from engram.domain.messages import resolve_provider

    assert resolve_provider("glm/glm-4.5") == "glm"
    assert resolve_provider("o1-2024-12-17") == "o1"
    assert resolve_provider("o1") == "o1"
    assert resolve_provider("o1x") is None
    assert resolve_provider("gpt-4o") is None
    assert resolve_provider("gpt-4o", configured="Qianfan") == "qianfan"


def test_the_job_carries_the_users_turn_only_by_default(chat, stub, jobs):
    captured = []
    jobs._handle = captured.append  # observe the job itself instead of processing it
    ask(chat, "I prefer tabs.")
    jobs.drain()
    assert [(t.role, t.text) for t in captured[0].turns] == [("user", "I prefer tabs.")]
    assert json.loads(captured[0].model_dump_json())["requestId"].startswith("chat-")


def test_the_assistants_words_never_become_the_users_facts(chat, stub, jobs, engine, key):
    stub.reply = "I prefer concise answers. I usually recommend Django."
    ask(chat, "What framework would you pick?")
    jobs.drain()
    assert keys_of(engine, key.id) == set()


def test_extract_from_both_marks_the_assistants_facts(chat, stub, jobs, engine, key):
    engine.settings.update(MemorySettingsUpdate(extract_from="both"))
    stub.reply = "I prefer Flask."
    ask(chat, "I prefer Django.")
    jobs.drain()
    stored = engine.memories.list_page(MemoryQuery(api_key_id=key.id)).data
    by_source = {m.metadata["source"]: m for m in stored}
    assert set(by_source) == {"user", "assistant"}
    assert by_source["assistant"].key == "assistant:preference:flask"
    # Same subject (a backend framework), other speaker: the user's preference stays live.
    assert by_source["user"].key == "preference:django"
    ask(chat, "Django or Flask for this?")
    injected = stub.requests[-1]["json"]["messages"][0]["content"].split("\n")
    assert "- said by the assistant, preference: Flask" in injected
    assert "- preference: Django" in injected


def test_a_secret_in_a_chat_never_reaches_the_queue(chat, stub, jobs, engine, key):
    captured = []
    jobs._handle = captured.append
    ask(chat, "We use Stripe with the key sk_live_51HxYzAbCdEfGhIjKlMnOpQr and password hunter2")
    jobs.drain()
    text = captured[0].turns[0].text
    assert "sk_live_" not in text and "hunter2" not in text
    assert "[REDACTED]" in text
