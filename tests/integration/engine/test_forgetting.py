"""Forgetting in bulk leaves nothing behind: rows, history, keyword index, stored vectors,
the vector matrix of another process, Qdrant points, cached vectors, the file itself,
while other keys, sessions and types stay untouched."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram import open_engine
from engram.domain.models import (
    ExtractionJob,
    JobTurn,
    MemoryCreate,
    MemoryForget,
    MemoryQuery,
    MemoryType,
    QdrantSettingsUpdate,
    RetrievalRequest,
    Strategy,
)

SECRETWORD = "zanzibarquokka"  # a word no other memory has, to find leftovers by


def add(engine, content, owner="k1", **kw):
    return engine.memories.create(MemoryCreate(api_key_id=owner, content=content, **kw))


def embed_all(engine):
    while engine.vectors.reindex(max_seconds=10).pending:
        pass


def count(engine, owner):
    return engine.memories.list_page(MemoryQuery(api_key_id=owner)).total


def test_a_dry_run_counts_and_changes_nothing(engine):
    add(engine, "alpha note", session_id="s1")
    add(engine, "beta note", session_id="s2", type=MemoryType.EPISODIC)
    outcome = engine.memories.forget(MemoryForget(api_key_id="k1", dry_run=True))
    assert (outcome.matched, outcome.deleted, outcome.dry_run) == (2, 0, True)
    assert outcome.by_type == {"factual": 1, "episodic": 1}
    assert count(engine, "k1") == 2


@pytest.mark.parametrize(
    ("filters", "left"),
    [
        ({}, set()),
        ({"session_id": "s1"}, {"beta note", "gamma note"}),
        ({"type": MemoryType.EPISODIC}, {"alpha note", "gamma note"}),
        ({"older_than_days": 10}, {"beta note", "gamma note"}),
        (
            {"session_id": "s1", "type": MemoryType.EPISODIC},
            {"alpha note", "beta note", "gamma note"},
        ),
    ],
)
def test_filters_combine(engine, clock, filters, left):
    add(engine, "alpha note", session_id="s1")
    clock.advance(days=20)
    add(engine, "beta note", session_id="s2", type=MemoryType.EPISODIC)
    add(engine, "gamma note")
    add(engine, "other key's note", owner="k2", session_id="s1")
    outcome = engine.memories.forget(MemoryForget(api_key_id="k1", **filters))
    remaining = {m.content for m in engine.memories.list_page(MemoryQuery(api_key_id="k1")).data}
    assert remaining == left
    assert outcome.deleted == 3 - len(left)
    assert count(engine, "k2") == 1  # another key is never touched


def test_nothing_of_a_forgotten_memory_remains_anywhere(engine, config, clock, db, db_path):
    engine.qdrant.update(QdrantSettingsUpdate(enabled=True))  # embedded Qdrant
    mine = add(engine, f"I keep my {SECRETWORD} in the garden shed", session_id="s1")
    neighbour = add(engine, "the shed is painted green", session_id="s1")
    theirs = add(engine, f"another key also mentions {SECRETWORD}", owner="k2")
    embed_all(engine)
    assert engine.qdrant.store().count() == 3
    # Another process with its own in-memory vector matrix, warmed up before the forget.
    other = open_engine(config, clock=clock, jobs="manual")
    try:
        request = RetrievalRequest(query=f"where is the {SECRETWORD}", strategy=Strategy.SEMANTIC)
        assert mine.id in {r.id for r in other.retrieval.preview("k1", request).results}
        # The embedding cache holds the memory's vector (the worker embedded its text).
        cache = engine.vectors.embeddings.current().embedder
        assert cache.forget([]) == 0 and cache._cache.get(cache.key(mine.content)) is not None
        # Its keyword postings (built in the background from a first keyword query) hold
        # the memories' words.
        keywords = other.retrieval.search.keywords
        by_words = RetrievalRequest(query=f"{SECRETWORD} garden shed", strategy=Strategy.SEMANTIC)
        other.retrieval.preview("k1", by_words)
        assert keywords.wait_built("k1", 30)
        gone_stems = {SECRETWORD, "garden", "shed", "paint", "green"}
        assert gone_stems <= set(keywords._indexes["k1"]._vocab)
        # And this process's own postings, which hear of the forget as it happens.
        mine_keywords = engine.retrieval.search.keywords
        engine.retrieval.preview("k1", by_words)
        assert mine_keywords.wait_built("k1", 30)
        assert gone_stems <= set(mine_keywords._indexes["k1"]._vocab)

        outcome = engine.memories.forget(MemoryForget(api_key_id="k1", session_id="s1"))
        assert outcome.deleted == 2
        # This process's postings forgot at once, before any query.
        assert not gone_stems & set(mine_keywords._indexes["k1"]._vocab)

        # Rows and history.
        assert db.scalar("SELECT count(*) FROM memories WHERE api_key_id = 'k1'") == 0
        assert db.scalar("SELECT count(*) FROM memory_history WHERE api_key_id = 'k1'") == 0
        # The keyword index: no token of the forgotten text, the other key's still there.
        hits = db.query(
            "SELECT m.api_key_id FROM memory_fts JOIN memories m ON m.seq = memory_fts.rowid"
            " WHERE memory_fts MATCH ?",
            (SECRETWORD,),
        )
        assert [h["api_key_id"] for h in hits] == ["k2"]
        vocab = db.query("SELECT doc FROM memory_fts_vocab WHERE term = ?", (SECRETWORD,))
        assert [v["doc"] for v in vocab] == [1]
        # Qdrant points of the forgotten memories, and theirs kept.
        assert engine.qdrant.store().count() == 1
        # The other process's matrix catches up by tombstone: nothing of k1 comes back.
        assert other.retrieval.preview("k1", request).results == []
        assert [r.id for r in other.retrieval.preview("k2", request).results] == [theirs.id]
        # Its keyword postings: the next query applies the tombstones, and no stem of the
        # forgotten words is left in them.
        assert other.retrieval.preview("k1", by_words).results == []
        postings = keywords._indexes.get("k1")
        assert postings is None or not gone_stems & set(postings._vocab)
        # Cached vectors of the forgotten text.
        assert cache._cache.get(cache.key(mine.content)) is None
        assert cache._cache.get(cache.key(neighbour.content)) is None
        # The file itself: secure_delete zeroes freed pages, the index was merged, the
        # WAL checkpointed. Words only the forgotten memories had are gone (as text and as
        # index terms: "painted" is indexed as "paint"); the other key's are still there.
        raw = db_path.read_bytes() + _wal(db_path)
        for gone in (b"garden shed", b"garden", b"paint", b"green"):
            assert gone not in raw, gone
        assert b"another key also mentions" in raw
    finally:
        other.close()


def _wal(db_path):
    wal = db_path.with_name(db_path.name + "-wal")
    return wal.read_bytes() if wal.exists() else b""


def test_forgetting_takes_the_history_of_a_fact_with_it(engine, db):
    for n, text in enumerate(["I prefer Vue.", "I prefer React now.", "I prefer Svelte now."]):
        engine.memories.process_extraction(
            ExtractionJob(
                api_key_id="k1", turns=[JobTurn(role="user", text=text)], request_id=f"f{n}"
            )
        )
    assert db.scalar("SELECT count(*) FROM memory_history") == 2
    outcome = engine.memories.forget(MemoryForget(api_key_id="k1", type=MemoryType.FACTUAL))
    assert (outcome.deleted, outcome.history) == (1, 2)
    assert db.scalar("SELECT count(*) FROM memory_history") == 0


def test_forgetting_other_sessions_keeps_contexts_clean(engine, db):
    add(engine, "first turn", session_id="s1")
    add(engine, f"the {SECRETWORD} turn", session_id="s1")
    kept = add(engine, "third turn", session_id="s1")
    engine.memories.forget(MemoryForget(api_key_id="k1", older_than_days=1))  # nothing so old
    assert count(engine, "k1") == 3
    # Delete the middle one: its neighbours' searchable context must not keep its words.
    engine.memories.delete(
        engine.memories.list_page(MemoryQuery(api_key_id="k1", q=SECRETWORD)).data[0].id
    )
    context = db.scalar("SELECT context FROM memories WHERE id = ?", (kept.id,))
    assert SECRETWORD not in context


def test_expired_memories_are_forgotten_too(engine, clock, db):
    add(engine, "short-lived", expires_at=clock.now + timedelta(hours=1))
    clock.advance(hours=2)
    outcome = engine.memories.forget(MemoryForget(api_key_id="k1"))
    assert outcome.deleted == 1
    assert db.scalar("SELECT count(*) FROM memories") == 0
