"""Vectors in libSQL: lazy embedding, signatures, quantization, reindex, the index."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from engram import Config, MemorySettingsUpdate, open_engine
from engram.app.fusion import keyword_by_id, weighted
from engram.domain.models import (
    EmbeddingJob,
    MemoryCreate,
    MemoryQuery,
    MemoryUpdate,
    OwnerFilter,
    RetrievalRequest,
    Strategy,
)
from tests.support.statements import statements
from tests.support.upstream_stub import StubUpstream

FACTS = [
    ("pet", "My cat is named Biscuit and she hates baths"),
    ("lang", "I write most of my code in TypeScript"),
    ("food", "Sushi is my favourite dinner on Fridays"),
    ("db", "We picked Postgres as the project database"),
]


def seed(engine, owner="k1", session=None):
    return [
        engine.memories.create(MemoryCreate(api_key_id=owner, key=k, content=c, session_id=session))
        for k, c in FACTS
    ]


def ask(engine, query, owner="k1", **kw):
    return engine.retrieval.retrieve(owner, RetrievalRequest(query=query, **kw))


def dense(engine, query, who):
    """The vector scores retrieval would use for ``query``."""
    return engine.vectors.dense(query, who, engine.now_ms(), 0).scores


def allowed(dense):
    """The ids a dense result may return (the others score -inf)."""
    return [i for i, sim in zip(dense.ids, dense.sims, strict=True) if np.isfinite(sim)]


def pending(db):
    return db.scalar("SELECT count(*) FROM memories WHERE needs_reindex = 1")


def blob_lengths(db):
    return {r["n"] for r in db.query("SELECT length(embedding) AS n FROM memories")}


def test_retrieval_embeds_missing_vectors_lazily(engine, db):
    seed(engine)
    assert pending(db) == 4
    result = ask(engine, "What food do I like for dinner?", strategy=Strategy.SEMANTIC)
    assert pending(db) == 0
    assert blob_lengths(db) == {256 * 4}
    assert result.resolution.embedding_source == "static"
    assert result.resolution.vector_store == "libsql"
    assert result.results[0].key == "food"  # no keyword overlap needed
    assert result.results[0].tier == "vector"
    signature = engine.vectors.rows.meta().signature
    assert signature == "static:potion-base-8M:256"


def test_a_settled_owner_is_not_looked_at_again_until_it_writes(engine, config, db):
    """With nothing pending at the owner's version a retrieval does not look again (a
    statement per query); any write moves the version, also another process's, and the
    next retrieval embeds what it wrote."""
    seed(engine)
    ask(engine, "dinner")  # embeds them (a write: the version moves)
    ask(engine, "dinner")  # nothing left at the new version
    own = engine.retrieval.search.db
    assert pending(db) == 0
    assert not any("needs_reindex = 1" in sql for sql in statements(own, lambda: ask(engine, "x")))
    other = open_engine(config, jobs="manual")  # another process, writing no vector
    try:
        other.memories.create(
            MemoryCreate(api_key_id="k1", key="tea", content="Green tea is what I drink at dawn")
        )
    finally:
        other.close()
    assert pending(db) == 1
    looked = statements(own, lambda: ask(engine, "dinner"))
    assert any("needs_reindex = 1" in sql for sql in looked)
    assert pending(db) == 0


def test_vectors_a_query_embeds_are_scored_by_that_query(engine):
    """A memory the index already holds without a vector (a preview saw it) and that a
    retrieval embeds lazily is ranked by meaning in that same retrieval: the write moves
    the owner's version, and the version read earlier in the retrieval is not trusted."""
    seed(engine)
    ask(engine, "dinner")
    ask(engine, "dinner")
    engine.memories.create(
        MemoryCreate(api_key_id="k1", key="tea", content="Green tea is what I drink at dawn")
    )
    engine.retrieval.preview("k1", RetrievalRequest(query="tea"))
    result = ask(engine, "What do I drink at dawn?", strategy=Strategy.SEMANTIC)
    assert [r.key for r in result.results][:1] == ["tea"]
    assert result.results[0].tier == "vector"


def test_vectors_survive_a_missing_fts_index(engine, db):
    """The owner's version is read with FTS5's averages record; a keyword index that
    cannot be read must not take the vector tier down with it."""
    seed(engine)
    ask(engine, "dinner")
    for trigger in ("memory_fts_ai", "memory_fts_ad", "memory_fts_au"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE memory_fts")
    result = ask(engine, "What food do I like for dinner?", strategy=Strategy.SEMANTIC)
    assert result.resolution.vector_store == "libsql"
    assert (result.results[0].key, result.results[0].tier) == ("food", "vector")


def test_a_forced_reindex_is_looked_at_by_the_next_query(engine, db):
    """``reindex(force=True)`` marks every row pending: the owner's version moves, so an
    owner that had nothing to embed is looked at again (lazily, by the next query)."""
    seed(engine)
    ask(engine, "dinner")
    ask(engine, "dinner")
    engine.vectors.reindex(force=True, max_seconds=0)
    assert pending(db) == 4
    ask(engine, "dinner")
    assert pending(db) == 0


def test_hybrid_fuses_and_reports_both_scores(engine):
    seed(engine)
    result = ask(engine, "What is my cat called?", strategy=Strategy.HYBRID)
    top = result.results[0]
    assert top.key == "pet"
    assert top.tier == "hybrid"
    assert top.fts_score > 0
    assert 0 < top.vec_score <= 1


def test_updating_content_re_embeds_and_deleting_drops_the_vector(engine, db):
    memories = seed(engine)
    ask(engine, "warm up")
    before = db.scalar("SELECT embedding FROM memories WHERE key = 'db'")
    engine.memories.update(memories[3].id, MemoryUpdate(content="We moved to SQLite"))
    assert pending(db) == 1
    ask(engine, "warm up again")
    after = db.scalar("SELECT embedding FROM memories WHERE key = 'db'")
    assert after != before
    engine.memories.delete(memories[0].id)
    scores = dense(engine, "cat", OwnerFilter(("k1",)))
    assert memories[0].id not in allowed(scores)
    assert len(allowed(scores)) == 3


def test_a_changed_embedder_marks_everything_for_reindex(engine, db):
    seed(engine)
    ask(engine, "warm up")
    engine.settings.update(MemorySettingsUpdate(static_enabled=False, transformers_enabled=True))
    result = engine.vectors.reindex(max_seconds=30)
    assert result.started and result.pending == 0 and result.processed == 4
    assert engine.vectors.rows.meta().signature == "transformers:all-MiniLM-L6-v2:384"
    assert blob_lengths(db) == {384 * 4}
    assert ask(engine, "what is my cat called?").resolution.embedding_source == "transformers"


def test_int8_quantization_is_part_of_the_signature(db_url, clock, db):
    def open_with(quantization):
        config = Config(db_url=db_url, vec_quantization=quantization)
        return open_engine(config, clock=clock, jobs="manual")

    first = open_with("none")
    seed(first)
    first.vectors.reindex()
    assert blob_lengths(db) == {1024}
    float_top = [r.key for r in ask(first, "favourite dinner", strategy=Strategy.SEMANTIC).results]
    first.close()

    second = open_with("int8")
    result = second.vectors.reindex()  # the signature changed: everything is re-embedded
    assert result.processed == 4
    assert second.vectors.rows.meta().signature == "static:potion-base-8M:256:int8"
    assert blob_lengths(db) == {267}  # ~4x smaller: 256 bytes + scale, shift, type
    int8_top = [r.key for r in ask(second, "favourite dinner", strategy=Strategy.SEMANTIC).results]
    assert int8_top[0] == float_top[0] == "food"
    second.close()


def test_force_reindex_and_progress_in_engine_status(engine):
    seed(engine)
    engine.vectors.reindex()
    assert engine.status.report().vector_store.pending_reindex == 0
    engine.vectors.rows.mark_all_pending()
    status = engine.status.report().vector_store
    assert (status.pending_reindex, status.total_memories) == (4, 4)
    result = engine.vectors.reindex(force=True)
    assert (result.processed, result.pending) == (4, 0)


def test_the_index_of_one_process_follows_writes_of_another(engine, config, clock):
    seed(engine)
    ask(engine, "warm up")
    other = open_engine(config, clock=clock, jobs="manual")  # its own in-memory index
    who = OwnerFilter(("k1",))
    assert len(allowed(dense(other, "x", who))) == 4
    added = engine.memories.create(MemoryCreate(api_key_id="k1", content="I play the cello"))
    engine.vectors.reindex()
    gone = engine.memories.list_page(MemoryQuery()).data[-1]
    engine.memories.delete(gone.id)
    ids = allowed(dense(other, "x", who))
    assert added.id in ids and gone.id not in ids and len(ids) == 4
    other.close()


def test_the_vector_tier_respects_owners_sessions_and_expiry(engine, clock):
    seed(engine, "alice", session="s1")
    seed(engine, "bob")
    from datetime import timedelta

    engine.memories.create(
        MemoryCreate(api_key_id="alice", content="temporary", expires_at=clock.now + timedelta(1))
    )
    alice = dense(engine, "cat", OwnerFilter(("alice",)))
    bob_ids = {m.id for m in engine.memories.list_page(MemoryQuery(api_key_id="bob")).data}
    assert len(allowed(alice)) == 5 and not bob_ids & set(alice.ids)
    assert len(allowed(dense(engine, "cat", OwnerFilter(("alice",), "s1")))) == 4
    clock.advance(days=2)
    assert len(allowed(dense(engine, "cat", OwnerFilter(("alice",))))) == 4


def test_no_embedder_degrades_to_keywords_without_error(tmp_path, engine, db):
    seed(engine)
    config = Config(db_url=engine.config.db_url, static_cache_dir=tmp_path)
    broken = open_engine(config, jobs="manual", database=db)
    result = broken.retrieval.retrieve("k1", RetrievalRequest(query="cat Biscuit"))
    assert result.results[0].key == "pet"
    assert result.resolution.vector_store is None
    assert result.resolution.fallback is True
    assert "model files missing" in result.resolution.reason


def test_a_failing_remote_embedder_degrades_to_keywords(engine, db):
    seed(engine)
    with StubUpstream() as stub:
        remote = open_engine(
            Config(db_url=engine.config.db_url, upstream_base_url=stub.url, upstream_api_key="sk"),
            jobs="manual",
            database=db,
        )
        remote.settings.update(
            MemorySettingsUpdate(custom_model_id="emb", embedding_source="remote")
        )
        stub.embedding_statuses = [500] * 10
        result = remote.retrieval.retrieve("k1", RetrievalRequest(query="cat Biscuit"))
        assert result.results[0].key == "pet"
        assert "failed" in result.resolution.reason
        stub.embedding_statuses = []
        healthy = remote.retrieval.retrieve("k1", RetrievalRequest(query="cat Biscuit"))
        assert healthy.resolution.embedding_source == "remote"
        assert remote.vectors.rows.meta().signature == "remote:emb:8"


def test_embedding_jobs_are_idempotent(engine):
    memories = seed(engine)
    job = EmbeddingJob(api_key_id="k1", memory_ids=[m.id for m in memories], request_id="r.embed")
    assert engine.jobs.embedding(job) == 4
    assert engine.jobs.embedding(job) == 0  # nothing left to do


def test_speakers_named_in_the_query_are_boosted(engine):
    for i, (speaker, text) in enumerate(
        [
            ("Melanie", "Caroline, what have you been reading lately?"),
            ("Caroline", "I have been reading about adoption agencies"),
            ("Melanie", "I have been reading about pottery"),
        ]
    ):
        engine.memories.create(
            MemoryCreate(
                api_key_id="k1",
                key=f"t{i}",
                content=text,
                session_id="s",
                metadata={"speaker": speaker},
            )
        )
    top = ask(engine, "What has Caroline been reading about?", strategy=Strategy.HYBRID)
    assert top.results[0].key == "t1"


def test_a_plain_transcript_line_names_its_speaker(engine):
    # Imported the plain way: "Name: text", no metadata.speaker.
    for i, text in enumerate(
        [
            "Melanie: Caroline, what have you been reading lately?",
            "Caroline: I have been reading about adoption agencies",
            "Melanie: I have been reading about pottery",
        ]
    ):
        engine.memories.create(
            MemoryCreate(api_key_id="k1", key=f"t{i}", content=text, session_id="s")
        )
    ask(engine, "anything", strategy=Strategy.HYBRID)  # embeds the pending memories
    from engram.domain.models import OwnerFilter

    dense = engine.vectors.dense("reading", OwnerFilter(("k1",)), engine.now_ms(), 0)
    masks = dense.scores.speaker_masks
    assert set(masks) == {"Melanie", "Caroline"}
    ids = dense.scores.ids
    caroline = masks["Caroline"][: len(ids)]
    by_id = {engine.memories.get(i).key: bool(m) for i, m in zip(ids, caroline, strict=True)}
    assert by_id == {"t0": False, "t1": True, "t2": False}


@pytest.mark.parametrize("dim", [3, 256, 384])
def test_libsql_f8_decoding_matches_libsql(dim, engine, db):
    from engram.adapters.libsql.encoding import decode

    vector = np.random.default_rng(dim).standard_normal(dim).astype(np.float32)
    blob = db.scalar("SELECT vector8(?)", (vector.tobytes(),))
    assert np.abs(decode(blob, dim) - vector).max() < 0.02
    assert np.array_equal(decode(db.scalar("SELECT vector32(?)", (vector.tobytes(),)), dim), vector)
    assert decode(b"\x00" * 7, dim) is None


@pytest.mark.parametrize("owners", [("k1",), ("k1", "k2")])
def test_scores_cut_before_another_thread_refreshes_stay_consistent(engine, owners):
    """A query's scores share the index's live mappings; a refresh by another thread
    (a write landing between a reader's cut and its fusion) adds rows past the cut.
    4 writers and 2 readers on one key once made this an IndexError (a 503)."""
    for owner in owners:
        seed(engine, owner)
    who = OwnerFilter(owners)
    before = dense(engine, "cat", who)
    cut = set(before.ids)
    added = [
        engine.memories.create(MemoryCreate(api_key_id="k1", content=f"I own {n} bicycles"))
        for n in range(40)
    ]
    engine.vectors.reindex()
    after = dense(engine, "cat", who)  # the same index, refreshed: its mappings grew
    assert {m.id for m in added} <= set(after.ids)
    seqs = list(before.seq_position) + list(after.seq_position)
    found = keyword_by_id([(seq, 1.0) for seq in seqs], before)
    assert found and set(found) <= cut
    fused = weighted([(seq, 1.0) for seq in seqs], before, set(), 10)
    assert {i for i, _ in fused} <= cut


def test_a_part_failing_marks_the_retrieval_degraded_and_counts_it(engine, db, caplog):
    seed(engine)
    healthy = ask(engine, "dinner", strategy=Strategy.SEMANTIC)
    assert healthy.resolution.degraded == []
    for trigger in ("memory_fts_ai", "memory_fts_ad", "memory_fts_au"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE memory_fts")
    with caplog.at_level(logging.WARNING):
        broken = ask(engine, "What food do I like for dinner?")
    assert broken.resolution.degraded == ["keyword index"] and broken.results
    assert engine.status.report().degraded_retrievals == 1
    lines = [r for r in caplog.records if r.getMessage() == "retrieval degraded"]
    assert len(lines) == 1 and lines[0].parts == ["keyword index"]
    assert "dinner" not in caplog.text and "Sushi" not in caplog.text
