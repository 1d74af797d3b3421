"""The Qdrant tier against qdrant-client's embedded mode, and unhealthy servers."""

from __future__ import annotations

import http.server
import json
import logging
import socket
import threading
import time
from datetime import timedelta
from typing import ClassVar

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from engram import Config, MemorySettingsUpdate, open_engine
from engram.domain.errors import UnavailableError
from engram.domain.models import (
    EmbeddingJob,
    MemoryCreate,
    MemoryImport,
    QdrantSettingsUpdate,
    RetrievalRequest,
    Strategy,
)
from shared.devtools.local_servers import free_port
from shared.http import create_app

SECRET = "qdrant-secret-key-value"


@pytest.fixture
def qdrant(engine):
    engine.qdrant.update(QdrantSettingsUpdate(enabled=True))
    engine.settings.update(MemorySettingsUpdate(vector_store="qdrant"))
    return engine


@pytest.fixture
def client(engine):
    config = Config(db_url=engine.config.db_url, admin_token=SecretStr("t"))
    app = create_app(config=config, engine=lambda: engine)
    return TestClient(app, headers={"Authorization": "Bearer t"})


def add(engine, content, owner="k1", **kw):
    return engine.memories.create(MemoryCreate(api_key_id=owner, content=content, **kw))


def embed_all(engine):
    """What the embedding worker does: vectors into libSQL, and points into Qdrant."""
    while engine.vectors.reindex(max_seconds=10).pending:
        pass


def points(engine):
    return engine.qdrant.store().count()


def test_settings_key_is_write_only_and_enabling_switches_the_store(client, engine, caplog):
    caplog.set_level(logging.DEBUG)
    seen = []
    assert client.get("/api/settings/qdrant").json()["enabled"] is False
    response = client.put(
        "/api/settings/qdrant",
        json={"enabled": True, "apiKey": SECRET, "collection": "mem", "quantization": "int8"},
    )
    seen.append(response.text)
    body = response.json()
    assert body["hasApiKey"] is True and "apiKey" not in body
    assert (body["collection"], body["quantization"], body["mode"]) == ("mem", "int8", "embedded")
    assert client.get("/api/settings/memory").json()["vectorStore"] == "qdrant"
    for path in (
        "/api/settings/qdrant",
        "/api/memory/engine-status",
        "/api/settings/qdrant/health",
    ):
        seen.append(client.get(path).text)
    assert client.put("/api/settings/qdrant", json={"apiKey": ""}).json()["hasApiKey"] is False
    off = client.put("/api/settings/qdrant", json={"enabled": False})
    seen.append(off.text)
    assert client.get("/api/settings/memory").json()["vectorStore"] == "auto"
    assert client.put("/api/settings/qdrant", json={"port": 0}).status_code == 422
    assert client.put("/api/settings/qdrant", json={"unknown": 1}).status_code == 422
    assert all(SECRET not in text for text in seen)
    assert SECRET not in caplog.text


def test_points_are_written_by_the_worker_not_on_the_request_path(qdrant):
    add(qdrant, "My cat is named Biscuit", session_id="s1")
    add(qdrant, "I write TypeScript", key="lang")
    qdrant.retrieval.retrieve("k1", RetrievalRequest(query="cat"))  # lazily embeds into libSQL only
    assert qdrant.qdrant.store().collection_dimension() is None
    embed_all(qdrant)  # nothing was pending any more: the lazy pass already embedded them
    assert points(qdrant) == 0
    new = add(qdrant, "We deploy on Fridays")
    job = EmbeddingJob(api_key_id="k1", memory_ids=[new.id], request_id="r.embed")
    assert qdrant.jobs.embedding(job) == 1
    store = qdrant.qdrant.store()
    assert store.collection_dimension() == 256  # from the first real embedding
    hit = store.search(
        qdrant.qdrant.embeddings.embed_query("deploy").tolist(),
        ["k1"],
        None,
        5,
        qdrant.now_ms() / 1000,
        0,
    )[0]
    assert hit.memory_id == new.id
    assert set(hit.payload) >= {
        "memoryId",
        "apiKeyId",
        "sessionId",
        "key",
        "content",
        "metadata",
        "createdAtUnix",
        "expiresAtUnix",
    }


def test_backfill_writes_existing_memories_with_progress(qdrant, client):
    for i in range(12):
        add(qdrant, f"fact number {i} about gardening", key=f"g{i}")
    qdrant.settings.update(MemorySettingsUpdate(vector_store="libsql"))
    embed_all(qdrant)  # vectors exist; Qdrant was not the store yet
    qdrant.settings.update(MemorySettingsUpdate(vector_store="qdrant"))
    body = client.post("/api/memory/reindex", json={"target": "qdrant"}).json()
    assert body == {"started": True, "pending": 0, "processed": 12, "reason": None}
    assert client.get("/api/memory/engine-status").json()["qdrant"]["points"] == 12


def test_search_is_filtered_by_owner_and_session_and_top_k_is_clamped(qdrant, client):
    for i in range(25):
        add(
            qdrant,
            f"gardening tip {i}",
            owner="alice",
            key=f"a{i}",
            session_id="s1" if i < 5 else None,
        )
    add(qdrant, "bob's gardening tip", owner="bob")
    embed_all(qdrant)
    qdrant.vectors.reindex(max_seconds=10, target="qdrant")
    hits = client.post(
        "/api/settings/qdrant/search", json={"query": "gardening", "topK": 500, "apiKeyId": "alice"}
    ).json()
    assert len(hits) == 20  # clamped
    assert {h["apiKeyId"] for h in hits} == {"alice"}
    from engram.domain.models import OwnerFilter

    session = qdrant.vectors.dense("gardening", OwnerFilter(("alice",), "s1"), qdrant.now_ms(), 0)
    assert session.vector_store == "qdrant"
    assert len(session.scores.ids) == 5
    assert client.post("/api/settings/qdrant/search", json={"query": ""}).status_code == 422


def test_hybrid_retrieval_answers_from_qdrant(qdrant):
    add(qdrant, "My cat is named Biscuit")
    add(qdrant, "Sushi on Fridays", key="food")
    embed_all(qdrant)
    qdrant.vectors.reindex(max_seconds=10, target="qdrant")
    result = qdrant.retrieval.retrieve("k1", RetrievalRequest(query="what is my cat called"))
    assert result.resolution.vector_store == "qdrant"
    assert result.resolution.fallback is False
    assert result.results[0].content == "My cat is named Biscuit"
    assert result.results[0].vec_score is not None


def test_imported_ids_that_are_not_uuids_are_mirrored_found_and_deleted(qdrant):
    # Qdrant only takes UUID (or integer) point ids; an import may keep any id.
    for memory_id, content in (("legacy-1", "My cat is named Biscuit"), ("notes_2", "Sushi")):
        qdrant.memories.upsert(MemoryImport(id=memory_id, api_key_id="k1", content=content))
    embed_all(qdrant)
    assert qdrant.vectors.reindex(max_seconds=10, target="qdrant").processed == 2
    assert points(qdrant) == 2
    result = qdrant.retrieval.retrieve("k1", RetrievalRequest(query="what is my cat called"))
    assert result.resolution.vector_store == "qdrant" and result.resolution.fallback is False
    assert result.results[0].id == "legacy-1"
    qdrant.memories.delete("legacy-1")
    assert points(qdrant) == 1


def test_deleting_a_memory_removes_its_point(qdrant):
    memory = add(qdrant, "temporary")
    embed_all(qdrant)
    qdrant.vectors.reindex(max_seconds=10, target="qdrant")
    assert points(qdrant) == 1
    qdrant.memories.delete(memory.id)
    assert points(qdrant) == 0


def test_cleanup_counts_then_removes_expired_and_old_points(qdrant, clock, client):
    add(qdrant, "expiring", key="e", expires_at=clock.now + timedelta(hours=1))
    add(qdrant, "will be old", key="o")
    embed_all(qdrant)
    qdrant.vectors.reindex(max_seconds=10, target="qdrant")
    clock.advance(days=40)
    add(qdrant, "fresh", key="f")
    embed_all(qdrant)
    qdrant.vectors.reindex(max_seconds=10, target="qdrant")
    assert client.post("/api/settings/qdrant/cleanup", json={"dryRun": True}).json()["count"] == 2
    assert points(qdrant) == 3
    result = qdrant.maintenance.cleanup()  # the hourly job cleans Qdrant too
    assert result.qdrant_points == 2
    assert points(qdrant) == 1


def test_a_changed_embedding_dimension_is_reported_and_retrieval_falls_back(qdrant, client):
    add(qdrant, "My cat is named Biscuit")
    embed_all(qdrant)
    qdrant.vectors.reindex(max_seconds=10, target="qdrant")  # a 256-d collection
    qdrant.settings.update(MemorySettingsUpdate(static_enabled=False, transformers_enabled=True))
    result = qdrant.retrieval.retrieve("k1", RetrievalRequest(query="cat"))
    assert result.resolution.vector_store == "libsql"
    assert "384" in result.resolution.reason and "256" in result.resolution.reason
    assert qdrant.status.report().qdrant.dimension == 256
    # Asked for directly, the mismatch is a conflict to resolve, not an outage.
    searched = client.post("/api/settings/qdrant/search", json={"query": "cat"})
    assert searched.status_code == 409, searched.text
    assert "256-d" in searched.json()["error"]["message"]
    embed_all(qdrant)
    backfill = client.post("/api/memory/reindex", json={"target": "qdrant"})
    assert backfill.status_code == 200, backfill.text
    assert backfill.json()["started"] is False and "256-d" in backfill.json()["reason"]


def test_embedding_models_lists_what_can_fill_the_collection(client):
    models = client.get("/api/settings/qdrant/embedding-models").json()
    assert {m["source"] for m in models} == {"static", "transformers"}


@pytest.fixture
def silent_server():
    """Accepts connections and never answers: a Qdrant that hangs."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held = []

    def accept():
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1]
    server.close()
    for conn in held:
        conn.close()


@pytest.mark.parametrize("kind", ["refused", "hanging"])
def test_an_unhealthy_server_degrades_to_libsql_vectors(engine, kind, request, clock):
    port = free_port() if kind == "refused" else request.getfixturevalue("silent_server")
    add(engine, "My cat is named Biscuit")
    server = open_engine(Config(db_url=engine.config.db_url), clock=clock, jobs="manual")
    server.qdrant.update(
        QdrantSettingsUpdate(
            enabled=True, host="127.0.0.1", port=port, timeout_ms=1000, api_key=SECRET
        )
    )
    server.settings.update(MemorySettingsUpdate(vector_store="qdrant"))
    result = server.retrieval.retrieve(
        "k1", RetrievalRequest(query="cat", strategy=Strategy.HYBRID)
    )
    assert result.results[0].content == "My cat is named Biscuit"
    assert result.resolution.vector_store == "libsql"
    assert "qdrant" in result.resolution.reason and result.resolution.fallback is True
    status = server.status.report().qdrant
    assert status.healthy is False and status.error
    assert SECRET not in status.model_dump_json()


def test_an_empty_collection_falls_back_and_says_so(qdrant):
    add(qdrant, "My cat is named Biscuit")
    result = qdrant.retrieval.retrieve("k1", RetrievalRequest(query="cat"))
    assert result.results[0].content == "My cat is named Biscuit"
    assert result.resolution.vector_store == "libsql"
    assert "qdrant returned nothing" in result.resolution.reason


@pytest.mark.parametrize("quantization", ["int8", "binary"])
def test_quantized_collections_are_created_and_searched(engine, quantization):
    engine.qdrant.update(
        QdrantSettingsUpdate(enabled=True, quantization=quantization, collection=quantization)
    )
    engine.settings.update(MemorySettingsUpdate(vector_store="qdrant"))
    add(engine, "My cat is named Biscuit")
    embed_all(engine)
    engine.vectors.reindex(max_seconds=10, target="qdrant")
    # Embedded mode accepts the quantization config and rescoring parameters (a server
    # applies them); the search must go through them and answer.
    result = engine.retrieval.retrieve(
        "k1", RetrievalRequest(query="cat", strategy=Strategy.SEMANTIC)
    )
    assert result.resolution.vector_store == "qdrant"
    assert result.results[0].content == "My cat is named Biscuit"


def test_changing_only_the_api_key_reconnects_with_the_new_key(engine):
    engine.qdrant.update(QdrantSettingsUpdate(enabled=True, api_key="first"))
    first = engine.qdrant.store()
    assert first.settings.api_key.get_secret_value() == "first"
    engine.qdrant.update(QdrantSettingsUpdate(api_key="second"))
    second = engine.qdrant.store()
    assert second is not first
    assert second.settings.api_key.get_secret_value() == "second"
    assert engine.qdrant.store() is second  # unchanged settings: the same client


# -- the embedding worker writes every new memory's point ------------------------------------


def point_of(engine, memory_id):
    hits = engine.qdrant.store().search(
        engine.qdrant.embeddings.embed_query("anything").tolist(),
        ["k1"],
        None,
        20,
        engine.now_ms() / 1000,
        0,
    )
    return next((h for h in hits if h.memory_id == memory_id), None)


def test_rest_writes_get_their_points_from_the_worker_after_a_lazy_embedding(qdrant, client):
    """The chat path may embed a new memory (into libSQL only) before its embedding job
    runs: the job still writes the point, from the stored vector. Creates, imports and
    content updates alike."""
    created = client.post("/api/memory", json={"apiKeyId": "k1", "content": "We deploy on Fridays"})
    imported = client.post(
        "/api/memory/import",
        json=[{"id": "legacy-7", "apiKeyId": "k1", "content": "Tea at four"}],
    )
    assert created.status_code == 201 and imported.status_code == 200, imported.text
    memory_id = created.json()["id"]
    qdrant.retrieval.retrieve("k1", RetrievalRequest(query="deploy"))  # lazy: libSQL only
    assert qdrant.vectors.rows.pending_count() == 0
    assert qdrant.queues.embedding.drain() == 2
    assert points(qdrant) == 2
    assert point_of(qdrant, memory_id).payload["content"] == "We deploy on Fridays"
    assert point_of(qdrant, "legacy-7") is not None

    changed = client.put(f"/api/memory/{memory_id}", json={"content": "We deploy on Mondays"})
    assert changed.status_code == 200
    qdrant.retrieval.retrieve("k1", RetrievalRequest(query="deploy"))
    qdrant.queues.embedding.drain()
    assert points(qdrant) == 2
    assert point_of(qdrant, memory_id).payload["content"] == "We deploy on Mondays"
    result = qdrant.retrieval.retrieve("k1", RetrievalRequest(query="when do we deploy"))
    assert result.resolution.vector_store == "qdrant"
    assert result.results[0].id == memory_id


def test_a_job_embeds_its_own_memories_before_an_older_backlog(qdrant):
    for i in range(80):  # waiting for a vector (a model change, an outage of the worker)
        add(qdrant, f"old note {i}", key=f"old{i}")
    new = add(qdrant, "We deploy on Fridays")
    job = EmbeddingJob(api_key_id="k1", memory_ids=[new.id], request_id="r.backlog")
    assert qdrant.jobs.embedding(job) >= 1
    assert point_of(qdrant, new.id) is not None


def test_the_worker_leaves_qdrant_alone_when_it_is_off(engine):
    memory = add(engine, "We deploy on Fridays")
    engine.retrieval.retrieve("k1", RetrievalRequest(query="deploy"))
    assert engine.queues.embedding.drain() == 1
    engine.qdrant.update(QdrantSettingsUpdate(enabled=True))
    assert engine.qdrant.store().collection_dimension() is None  # nothing was written
    assert engine.vectors.rows.embedded("k1", [memory.id], 256)  # libSQL has its vector


# -- timeoutMs bounds every call -------------------------------------------------------------


# qdrant-client takes whole seconds (200 ms would wait 1 s): the bound below is as
# generous as a busy 2-core machine needs (a call took 0.73 s under load), yet short of
# the 1 s the client alone would wait.
TIMEOUT_MS = 200
BOUND_S = 0.95


@pytest.mark.parametrize("kind", ["refused", "hanging"])
def test_the_health_probe_answers_within_the_timeout(engine, kind, request, clock, client):
    port = free_port() if kind == "refused" else request.getfixturevalue("silent_server")
    engine.qdrant.update(
        QdrantSettingsUpdate(enabled=True, host="127.0.0.1", port=port, timeout_ms=TIMEOUT_MS)
    )
    started = time.perf_counter()
    health = engine.qdrant.health()  # the first probe: no client built or imported yet
    elapsed = time.perf_counter() - started
    assert health.ok is False and health.error
    if kind == "hanging":
        assert health.error == f"qdrant health probe timed out after {TIMEOUT_MS} ms"
    assert elapsed < BOUND_S, elapsed  # a bound, not a benchmark
    assert client.get("/api/settings/qdrant/health").json()["ok"] is False
    assert client.get("/api/memory/engine-status").json()["qdrant"]["healthy"] is False


def test_searches_and_writes_of_a_hanging_server_end_at_the_timeout(engine, silent_server):
    engine.qdrant.update(
        QdrantSettingsUpdate(
            enabled=True, host="127.0.0.1", port=silent_server, timeout_ms=TIMEOUT_MS
        )
    )
    store = engine.qdrant.store()
    store._connect()  # the client's import is a one-time cost of the process, not a wait
    for call in (
        lambda: store.search([0.1] * 8, ["k1"], None, 5, 0, 0),
        lambda: store.upsert([("m1", [0.1] * 8, {"apiKeyId": "k1"})]),
        lambda: store.delete(["m1"]),
        store.count,
    ):
        started = time.perf_counter()
        with pytest.raises(UnavailableError, match=f"timed out after {TIMEOUT_MS} ms"):
            call()
        assert time.perf_counter() - started < BOUND_S


class FakeQdrant(http.server.BaseHTTPRequestHandler):
    """Answers the two requests of the health probe as a Qdrant server would."""

    collections: ClassVar[dict[str, tuple[int, int]]] = {"engram_memory": (256, 3)}
    seen_keys: ClassVar[list[str | None]] = []

    def _answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        FakeQdrant.seen_keys.append(self.headers.get("api-key"))
        name = self.path.split("/")[2]
        if self.headers.get("api-key") == "wrong":
            return self._answer(403, {"status": {"error": "forbidden"}})
        if name not in self.collections:
            return self._answer(404, {"status": {"error": "not found"}})
        size, _ = self.collections[name]
        return self._answer(200, {"result": {"config": {"params": {"vectors": {"size": size}}}}})

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        assert json.loads(self.rfile.read(length)) == {"exact": True}
        _, count = self.collections[self.path.split("/")[2]]
        return self._answer(200, {"result": {"count": count}})

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_qdrant():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeQdrant)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_the_health_probe_reads_a_servers_collection(engine, fake_qdrant):
    FakeQdrant.seen_keys.clear()
    engine.qdrant.update(
        QdrantSettingsUpdate(enabled=True, host="127.0.0.1", port=fake_qdrant, api_key=SECRET)
    )
    health = engine.qdrant.health()
    assert (health.ok, health.dimension, health.points) == (True, 256, 3)
    assert FakeQdrant.seen_keys == [SECRET]
    engine.qdrant.update(QdrantSettingsUpdate(collection="missing"))
    health = engine.qdrant.health()
    assert (health.ok, health.dimension, health.points) == (True, None, 0)
    engine.qdrant.update(QdrantSettingsUpdate(api_key="wrong"))
    health = engine.qdrant.health()
    assert health.ok is False and health.error == "qdrant health probe answered 403"


# -- one answer about the active tier --------------------------------------------------------


def preview_store(client):
    body = client.post(
        "/api/memory/retrieve-preview", json={"apiKeyId": "k1", "query": "what is my cat called"}
    ).json()
    return body["resolution"]["vectorStore"]


def active_store(client):
    return client.get("/api/memory/engine-status").json()["vectorStore"]["active"]


def test_engine_status_and_the_preview_name_the_same_vector_store(engine, client):
    add(engine, "My cat is named Biscuit")
    embed_all(engine)
    assert active_store(client) == preview_store(client) == "libsql"
    client.put("/api/settings/qdrant", json={"enabled": True})
    engine.vectors.reindex(max_seconds=10, target="qdrant")
    assert active_store(client) == preview_store(client) == "qdrant"
    client.put("/api/settings/memory", json={"vectorStore": "libsql"})
    assert active_store(client) == preview_store(client) == "libsql"
    client.put("/api/settings/memory", json={"vectorStore": "qdrant"})
    client.put("/api/settings/memory", json={"staticEnabled": False})  # no embedder at all
    assert active_store(client) is None
    assert preview_store(client) is None


def test_an_embedder_that_cannot_answer_is_keyword_only_for_both(engine, clock):
    config = Config(
        db_url=engine.config.db_url, admin_token=SecretStr("t"), embedding_api_key=SecretStr("e")
    )
    remote = open_engine(config, clock=clock, jobs="manual")
    client = TestClient(
        create_app(config=config, engine=lambda: remote), headers={"Authorization": "Bearer t"}
    )
    add(remote, "My cat is named Biscuit")
    down = {
        "embeddingSource": "remote",
        "customBaseUrl": f"http://127.0.0.1:{free_port()}/v1",
        "customModelId": "emb",
    }
    try:
        assert client.put("/api/settings/memory", json=down).status_code == 200
        assert remote.vectors.embeddings.current().embedder is not None
        assert active_store(client) is None  # its dimension is unknown: keyword only
        assert preview_store(client) is None
    finally:
        remote.close()


@pytest.mark.parametrize("first", ["status", "preview"])
def test_a_dead_server_is_named_by_neither(engine, client, first):
    add(engine, "My cat is named Biscuit")
    embed_all(engine)
    engine.qdrant.update(
        QdrantSettingsUpdate(enabled=True, host="127.0.0.1", port=free_port(), timeout_ms=500)
    )
    if first == "status":
        assert active_store(client) == "libsql"  # its probe failed: Qdrant rests
        assert preview_store(client) == "libsql"
    else:
        assert preview_store(client) == "libsql"  # its search failed: Qdrant rests
        assert active_store(client) == "libsql"


# -- embedded Qdrant is refused in AWS Lambda ------------------------------------------------


@pytest.fixture
def in_lambda(engine, clock):
    config = Config(
        db_url=engine.config.db_url,
        data_dir=engine.config.data_dir,
        admin_token=SecretStr("t"),
        lambda_function="engram-memory-api",
    )
    lambda_engine = open_engine(config, clock=clock, jobs="manual")
    app = create_app(config=config, engine=lambda: lambda_engine)
    yield lambda_engine, TestClient(app, headers={"Authorization": "Bearer t"})
    lambda_engine.close()


def test_lambda_refuses_to_enable_embedded_qdrant(in_lambda):
    _, client = in_lambda
    refused = client.put("/api/settings/qdrant", json={"enabled": True})
    assert refused.status_code == 422
    assert "Lambda" in refused.json()["error"]["message"]
    assert client.get("/api/settings/qdrant").json()["enabled"] is False  # nothing saved
    assert client.get("/api/settings/memory").json()["vectorStore"] == "auto"
    server = client.put("/api/settings/qdrant", json={"enabled": True, "host": "qdrant.internal"})
    assert server.status_code == 200 and server.json()["mode"] == "server"
    assert client.put("/api/settings/qdrant", json={"host": ""}).status_code == 422
    assert client.get("/api/settings/qdrant").json()["host"] == "qdrant.internal"


def test_lambda_reports_stored_embedded_settings_and_leaves_them_unused(engine, in_lambda):
    engine.qdrant.update(QdrantSettingsUpdate(enabled=True))  # saved outside Lambda
    lambda_engine, client = in_lambda
    add(lambda_engine, "My cat is named Biscuit")
    assert lambda_engine.queues.embedding.drain() == 1  # the worker writes no point in /tmp
    status = client.get("/api/memory/engine-status").json()
    assert status["qdrant"]["enabled"] is True and status["qdrant"]["healthy"] is False
    assert "Lambda" in status["qdrant"]["error"]
    assert status["vectorStore"]["active"] == "libsql" == preview_store(client)
    assert "Lambda" in client.get("/api/settings/qdrant/health").json()["error"]
    searched = client.post("/api/settings/qdrant/search", json={"query": "cat"})
    assert searched.status_code == 409 and "Lambda" in searched.json()["error"]["message"]
    assert not (lambda_engine.config.data_dir / "qdrant").exists()


def test_lambda_with_a_deployment_url_needs_no_host(engine, clock):
    config = Config(
        db_url=engine.config.db_url,
        lambda_function="engram-memory-api",
        qdrant_url="http://127.0.0.1:6333",
    )
    lambda_engine = open_engine(config, clock=clock, jobs="manual")
    try:
        settings = lambda_engine.qdrant.update(QdrantSettingsUpdate(enabled=True))
        assert settings.enabled is True
        assert lambda_engine.qdrant.current().host == "127.0.0.1"
    finally:
        lambda_engine.close()


def test_embedded_mode_takes_writes_and_cleanups_from_several_threads(qdrant):
    # qdrant-client's local mode is not thread-safe; the adapter serialises its calls.
    add(qdrant, "seed fact")
    embed_all(qdrant)
    qdrant.vectors.reindex(max_seconds=10, target="qdrant")
    errors = []

    def writer():
        for i in range(150):
            try:
                add(qdrant, f"fact {i} about dogs {i * 7}", key=f"d{i}")
                qdrant.vectors.reindex(max_seconds=5)
            except Exception as exc:
                errors.append(repr(exc))

    def cleaner():
        for i in range(150):
            try:
                qdrant.qdrant.cleanup(i % 2 == 0)
            except Exception as exc:
                errors.append(repr(exc))

    threads = [threading.Thread(target=writer), threading.Thread(target=cleaner)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert points(qdrant) == 151


def test_a_search_the_settings_cannot_embed_is_a_conflict_naming_the_fix(qdrant, clock):
    """The settings choose a remote embedder the process has no key for: the test search
    is the caller's to fix (another embeddingSource), so 409 with the reason, not 503."""
    config = Config(
        db_url=qdrant.config.db_url,
        admin_token=SecretStr("t"),
        upstream_base_url="http://127.0.0.1:9/v1",
        upstream_api_key=SecretStr("sk-upstream-secret"),
    )
    engine = open_engine(config, clock=clock, jobs="manual")
    client = TestClient(
        create_app(config=config, engine=lambda: engine), headers={"Authorization": "Bearer t"}
    )
    elsewhere = {
        "embeddingSource": "remote",
        "customBaseUrl": "http://127.0.0.1:10/v1",
        "customModelId": "emb",
    }
    try:
        assert client.put("/api/settings/memory", json=elsewhere).status_code == 200
        answer = client.post("/api/settings/qdrant/search", json={"query": "cat"})
        assert answer.status_code == 409
        message = answer.json()["error"]["message"]
        assert "ENGRAM_EMBEDDING_API_KEY" in message
        assert "sk-upstream-secret" not in answer.text
    finally:
        engine.close()
