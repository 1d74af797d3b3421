"""A key larger than a process may hold in memory is searched by the database.

Scaled down: one key may load 0.5 MiB of vectors (ENGRAM_VECTOR_KEY_MAX_MB), 512 of
256 float32; key k1 has 600, key k2 four. k1 is scored by SQL's ``vector_distance_cos``
(the nearest rows only), k2 still in memory.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from engram import open_engine
from engram.adapters.libsql import IndexCache
from engram.adapters.libsql.encoding import decode
from engram.adapters.libsql.vector_index import OwnerIndex
from engram.domain.models import MemoryCreate, MemoryImport, OwnerFilter, RetrievalRequest

FILLER = "note {n}: the {thing} in row {n} of the allotment needs water"
THINGS = ["tomatoes", "beans", "leeks", "onions", "kale", "peas", "chard", "garlic"]


@pytest.fixture
def small_cache(config, clock):
    engine = open_engine(
        config.model_copy(update={"vector_key_max_mb": 0.5}), clock=clock, jobs="manual"
    )
    items = [
        MemoryImport(
            api_key_id="k1",
            key=f"note-{n}",
            content=FILLER.format(n=n, thing=THINGS[n % len(THINGS)]),
            session_id=f"s{n % 3}",
        )
        for n in range(598)
    ]
    engine.memories.upsert_many(items)
    engine.ids = {  # type: ignore[attr-defined]
        "cello": engine.memories.create(
            MemoryCreate(api_key_id="k1", key="cello", content="I play the cello", session_id="s1")
        ).id,
        "violin": engine.memories.create(
            MemoryCreate(
                api_key_id="k1",
                key="violin",
                content="I play the violin",
                expires_at=clock.now + timedelta(hours=1),
            )
        ).id,
        "k2 cello": engine.memories.create(
            MemoryCreate(api_key_id="k2", key="cello", content="I play the cello in an orchestra")
        ).id,
    }
    for n in range(3):
        engine.memories.create(MemoryCreate(api_key_id="k2", key=f"k2-{n}", content=f"k2 note {n}"))
    while engine.vectors.reindex(max_seconds=30).pending:
        pass
    yield engine
    engine.close()


def scores(engine, query, who):
    return engine.vectors.dense(query, who, engine.now_ms(), 0).scores


def test_a_key_past_the_bound_is_scored_by_sql_and_a_small_one_in_memory(small_cache):
    big = scores(small_cache, "which instrument do I play", OwnerFilter(("k1",)))
    assert big is not None and not big.complete  # the nearest rows only, from SQL
    assert {i for i, _ in big.top(2)} == {small_cache.ids["cello"], small_cache.ids["violin"]}
    small = scores(small_cache, "which instrument do I play", OwnerFilter(("k2",)))
    assert small is not None and small.complete  # every row, from the in-memory index
    assert small.top(1)[0][0] == small_cache.ids["k2 cello"]


def test_sql_returns_exactly_the_nearest_rows_of_the_owner(small_cache, db):
    query = "which instrument do I play"
    big = scores(small_cache, query, OwnerFilter(("k1",)))
    assert big is not None
    embedder = small_cache.vectors.embeddings.current().embedder
    vector = embedder.embed([query])[0]
    rows = db.query("SELECT id, api_key_id, embedding FROM memories WHERE embedding IS NOT NULL")
    exact = {}
    for row in rows:
        raw = decode(row["embedding"], embedder.dim)
        exact[row["id"]] = (row["api_key_id"], float(raw @ vector / np.linalg.norm(raw)))
    returned = dict(zip(big.ids, big.sims.tolist(), strict=True))
    assert all(exact[i][0] == "k1" for i in returned)  # never another key's rows
    for memory_id, sim in returned.items():
        assert sim == pytest.approx(exact[memory_id][1], abs=1e-4)
    left_out = [s for i, (owner, s) in exact.items() if owner == "k1" and i not in returned]
    assert min(returned.values()) >= max(left_out) - 1e-4


def test_sql_search_keeps_to_the_session_and_drops_expired_rows(small_cache, clock):
    in_session = scores(small_cache, "which instrument do I play", OwnerFilter(("k1",), "s1"))
    assert in_session is not None
    sessions = {small_cache.memories.get(i, "k1").session_id for i in in_session.ids}
    assert sessions == {"s1"}
    assert in_session.top(1)[0][0] == small_cache.ids["cello"]
    before = scores(small_cache, "which instrument do I play", OwnerFilter(("k1",)))
    assert before is not None and small_cache.ids["violin"] in before.ids
    clock.advance(hours=2)  # the violin expires
    later = scores(small_cache, "which instrument do I play", OwnerFilter(("k1",)))
    assert later is not None and small_cache.ids["violin"] not in later.ids


@pytest.mark.parametrize("strategy", ["semantic", "hybrid"])
def test_retrieval_of_an_outsized_key_uses_vectors_not_a_fallback(small_cache, strategy):
    found = small_cache.retrieval.preview(
        "k1", RetrievalRequest(query="which instrument do I play", strategy=strategy)
    )
    assert not found.resolution.fallback, found.resolution.reason
    assert found.resolution.embedding_source == "static"
    assert found.results[0].content in {"I play the violin", "I play the cello"}


def test_the_memory_bound_also_keeps_a_key_out_and_a_growing_key_leaves(small_cache):
    rows = small_cache.vectors.rows
    dim = small_cache.vectors.embeddings.current().embedder.dim
    by_memory = IndexCache(100 * OwnerIndex.row_bytes(dim))  # room for 100 rows
    assert by_memory.get("k1", dim, rows) is None  # 600 rows: searched in SQL
    assert by_memory.get("k2", dim, rows) is not None  # 4 rows: held
    by_load = IndexCache(2**30, key_max_bytes=5 * 4 * dim)  # five float32 vectors
    assert by_load.get("k2", dim, rows) is not None
    for n in range(2):
        small_cache.memories.create(MemoryCreate(api_key_id="k2", key=f"more-{n}", content="x"))
    small_cache.vectors.reindex(max_seconds=30)
    assert by_load.get("k2", dim, rows) is None  # grew past the bound: let go
    assert "k2" not in by_load._indexes


def test_a_key_past_float32s_share_of_the_cache_is_held_as_int8(small_cache):
    rows = small_cache.vectors.rows
    dim = small_cache.vectors.embeddings.current().embedder.dim
    query = small_cache.vectors.embeddings.current().embedder.embed(["which instrument"])[0]
    roomy = IndexCache(2**30).get("k1", dim, rows)
    tight = IndexCache(1000 * OwnerIndex.row_bytes(dim, compact=True)).get("k1", dim, rows)
    assert roomy is not None and not roomy.compact
    assert tight is not None and tight.compact  # 600 rows: past 80 as float32, under 1,000
    assert tight.nbytes < 0.4 * roomy.nbytes
    exact, quantized = roomy.similarities(query), tight.similarities(query)
    assert np.abs(exact - quantized).max() < 0.01
    top, near = np.argsort(-exact)[:10], np.argsort(-quantized)[:10]
    assert top[0] == near[0] and len(set(top) & set(near)) >= 9


def test_a_held_key_growing_past_float32s_share_is_reloaded_as_int8(small_cache):
    rows = small_cache.vectors.rows
    dim = small_cache.vectors.embeddings.current().embedder.dim
    cache = IndexCache(20 * OwnerIndex.row_bytes(dim))  # 5 rows as float32, ~62 as int8
    first = cache.get("k2", dim, rows)
    assert first is not None and not first.compact
    for n in range(2):
        small_cache.memories.create(MemoryCreate(api_key_id="k2", key=f"more-{n}", content="x"))
    small_cache.vectors.reindex(max_seconds=30)
    grown = cache.get("k2", dim, rows)
    assert grown is not None and grown.compact and grown.n == 6


def test_an_outsized_key_of_int8_vectors_is_scored_by_sql_too(config, clock):
    update = {"vector_key_max_mb": 0.1, "vec_quantization": "int8"}  # ~380 int8 rows
    engine = open_engine(config.model_copy(update=update), clock=clock, jobs="manual")
    try:
        engine.memories.upsert_many(
            [
                MemoryImport(api_key_id="k1", key=f"n{n}", content=FILLER.format(n=n, thing="kale"))
                for n in range(450)
            ]
        )
        cello = engine.memories.create(
            MemoryCreate(api_key_id="k1", key="cello", content="I play the cello")
        )
        while engine.vectors.reindex(max_seconds=30).pending:
            pass
        found = scores(engine, "which instrument do I play", OwnerFilter(("k1",)))
        assert found is not None and not found.complete
        assert found.top(1)[0][0] == cello.id
    finally:
        engine.close()
