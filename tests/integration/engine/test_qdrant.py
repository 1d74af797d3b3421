"""The Qdrant tier against qdrant-client's embedded mode, and unhealthy servers."""

from __future__ import annotations

import logging
import socket
import threading
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from engram import Config, MemorySettingsUpdate, open_engine
from engram.models import (
    EmbeddingJob,
    MemoryCreate,
    MemoryImport,
    QdrantSettingsUpdate,
    RetrievalRequest,
    Strategy,
)
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
    from engram.models import OwnerFilter

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


def test_a_changed_embedding_dimension_is_reported_and_retrieval_falls_back(qdrant):
    add(qdrant, "My cat is named Biscuit")
    embed_all(qdrant)
    qdrant.vectors.reindex(max_seconds=10, target="qdrant")  # a 256-d collection
    qdrant.settings.update(MemorySettingsUpdate(static_enabled=False, transformers_enabled=True))
    result = qdrant.retrieval.retrieve("k1", RetrievalRequest(query="cat"))
    assert result.resolution.vector_store == "libsql"
    assert "384" in result.resolution.reason and "256" in result.resolution.reason
    assert qdrant.status.report().qdrant.dimension == 256


def test_embedding_models_lists_what_can_fill_the_collection(client):
    models = client.get("/api/settings/qdrant/embedding-models").json()
    assert {m["source"] for m in models} == {"static", "transformers"}


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
    port = closed_port() if kind == "refused" else request.getfixturevalue("silent_server")
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
