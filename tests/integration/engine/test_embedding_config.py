"""One embedding configuration for the whole deployment (issue 13, item 4).

Functions of one deployment share the database but not their environment: the chat
proxy holds the upstream key the remote embedder needs, a worker may not. Every
process must still embed with the one embedder the stored settings choose, or not
at all: a process that cannot build it never resets the signature, leaves vectors
pending and says why. Two engines on one libSQL file stand for two processes.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from engram import Config, Engine, MemorySettingsUpdate, open_engine
from engram.adapters.embeddings.catalog import LocalCatalog, RemoteKeys
from engram.domain.models import EmbeddingJob, MemoryCreate, MemorySettings, RetrievalRequest
from tests.support.upstream_stub import StubUpstream

REMOTE = "remote:emb:8"
STATIC = "static:potion-base-8M:256"
TRANSFORMERS = "transformers:all-MiniLM-L6-v2:384"


@pytest.fixture
def stub() -> Iterator[StubUpstream]:
    with StubUpstream() as upstream:
        yield upstream


def _open(config: Config, clock, **env) -> Engine:
    return open_engine(Config(**{**config.model_dump(), **env}), clock=clock, jobs="manual")


@pytest.fixture
def chat(config, clock, stub) -> Iterator[Engine]:
    """The chat proxy: it has the upstream's URL and key, which the remote embedder uses."""
    engine = _open(config, clock, upstream_base_url=stub.url, upstream_api_key="sk-upstream")
    yield engine
    engine.close()


@pytest.fixture
def worker(config, clock) -> Iterator[Engine]:
    """A worker (or the memory API, the preview, the reindex schedule) without them."""
    engine = _open(config, clock)
    yield engine
    engine.close()


def meta(engine: Engine) -> tuple[str | None, int | None]:
    m = engine.vectors.rows.meta()
    return m.signature, m.last_reset_at


def embedded(db) -> int:
    return db.scalar("SELECT count(*) FROM memories WHERE needs_reindex = 0")


def write(engine: Engine, i: int) -> EmbeddingJob:
    memory = engine.memories.create(
        MemoryCreate(api_key_id="k1", key=f"m{i}", content=f"fact number {i} about cats")
    )
    return EmbeddingJob(api_key_id="k1", memory_ids=[memory.id], request_id=f"r{i}")


def test_two_processes_with_different_credentials_never_flip_the_signature(
    chat, worker, stub, clock, db
):
    for i in range(3):
        write(worker, i)
    worker.vectors.reindex()
    assert meta(worker)[0] == STATIC  # the default: static, which both can build

    # A tenant names a remote model. `auto` now means remote, for every process.
    worker.settings.update(MemorySettingsUpdate(custom_model_id="emb"))
    chat.settings.invalidate()  # (the chat proxy sees it within its settings TTL)
    answer = chat.retrieval.retrieve("k1", RetrievalRequest(query="cats"))
    assert answer.resolution.embedding_source == "remote"
    chat.vectors.reindex()  # (a local file embeds at query time; a remote one leaves it here)
    signature, reset_at = meta(chat)
    assert signature == REMOTE and embedded(db) == 3

    calls = stub.embedding_calls
    for round_ in range(3):  # the 5-minute reindex, the worker, the chat proxy, in turn
        job = write(worker, 10 + round_)
        assert worker.jobs.embedding(job) == 0  # cannot embed: leaves it pending
        skipped = worker.vectors.reindex()
        assert not skipped.started and "unavailable" in skipped.reason
        assert skipped.pending == 1
        keywords = worker.retrieval.retrieve("k1", RetrievalRequest(query="cats"))
        assert keywords.resolution.vector_store is None
        assert "embedding unavailable: remote" in keywords.resolution.reason
        assert keywords.results  # found by keywords
        assert meta(worker) == (REMOTE, reset_at)  # never reset, never another signature

        done = chat.vectors.reindex()
        assert (done.started, done.processed, done.pending) == (True, 1, 0)
        assert meta(chat) == (REMOTE, reset_at)
        clock.advance(minutes=5)
    # Only the new memories were embedded again (a reset would have re-embedded all).
    assert embedded(db) == 6
    assert stub.embedding_calls - calls == 3

    status = worker.status.report()
    assert status.embedding_configured == "remote" and status.embedding_source is None
    assert "ENGRAM_UPSTREAM_BASE_URL" in status.embedding_unavailable
    assert status.vector_store.signature == REMOTE
    failure = next(f for f in status.failures if f.component == "embedder")
    assert failure.error.startswith("unavailable: remote:")
    healthy = chat.status.report()
    assert (healthy.embedding_configured, healthy.embedding_source) == ("remote", "remote")
    assert healthy.embedding_unavailable is None
    assert not [f for f in healthy.failures if f.component == "embedder"]


def test_a_process_with_older_cached_settings_does_not_undo_a_reset(config, clock, db):
    """Settings are cached per process; a reset is decided on settings read afresh."""
    first, second = _open(config, clock), _open(config, clock)  # settings TTL: 60 s
    try:
        write(first, 0)
        first.vectors.reindex()
        second.vectors.reindex()  # caches the settings: static
        first.settings.update(MemorySettingsUpdate(static_enabled=False, transformers_enabled=True))
        assert first.vectors.reindex().processed == 1
        signature, reset_at = meta(first)
        assert signature == TRANSFORMERS
        second.vectors.reindex()
        second.jobs.embedding(write(second, 1))
        second.retrieval.retrieve("k1", RetrievalRequest(query="cats"))
        assert meta(second) == (TRANSFORMERS, reset_at)
        assert embedded(db) == 2
    finally:
        first.close()
        second.close()


def test_the_settings_alone_choose_the_source(stub):
    """`auto` names remote once a remote model is set, whatever this process holds; a
    process without the key gets no embedder and the reason, never the static one."""
    settings = MemorySettings(custom_model_id="emb")
    assert settings.chosen_embedding_source() == "remote"
    assert MemorySettings().chosen_embedding_source() == "static"
    assert MemorySettings(static_enabled=False).chosen_embedding_source() is None
    without = LocalCatalog().resolve(settings)
    assert without.embedder is None and without.unavailable
    assert without.source == "remote" and without.reason.startswith("remote: ")
    elsewhere = MemorySettings(custom_model_id="emb", custom_base_url="https://e.example/v1")
    keyed = LocalCatalog(remote=RemoteKeys(stub.url, None, None)).resolve(elsewhere)
    assert "API key" in keyed.reason
    upstream_only = LocalCatalog(remote=RemoteKeys(stub.url, SecretStr("sk")))
    assert "ENGRAM_EMBEDDING_API_KEY" in upstream_only.resolve(elsewhere).reason
    off = LocalCatalog().resolve(MemorySettings(static_enabled=False))
    assert off.embedder is None and not off.unavailable
    chosen = upstream_only.resolve(settings)
    assert chosen.embedder is not None and chosen.embedder.source == "remote"
