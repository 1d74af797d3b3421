"""How to search vectors: SQL brute force vs numpy over the cached per-owner matrix.

10,000 memories (256-d, static embedder) for the queried key, 20,000 in the database.
Prints p50s measured in this one process (see docs/retrieval.md).

Run: ``.venv/bin/python bench/vector_search.py``.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from engine_bench import Corpus, fill, open_engine, use_vectors

from engram import MemorySettings
from engram.adapters.embeddings.catalog import LocalCatalog
from engram.adapters.libsql import IndexCache, LibsqlVectorTier, VectorRowsRepository
from engram.domain.models import MemoryCreate, OwnerFilter


def p50(fn: Callable[[], object], n: int = 50) -> float:
    fn()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    corpus = Corpus(random.Random(3))
    with tempfile.TemporaryDirectory() as tmp:
        engine, db = open_engine(Path(tmp) / "v.db")
        fill(engine, 20_000, 10_000, corpus)
        use_vectors(engine, True)
        embedder = LocalCatalog().resolve(MemorySettings()).embedder
        assert embedder is not None
        rows_of = VectorRowsRepository(db)
        cache = IndexCache(512 * 2**20)
        tier = LibsqlVectorTier(cache, rows_of, embedder.dim)
        text = "what did the user say about the deadline"
        query = embedder.embed([text])[0]
        who = OwnerFilter(("k1",))
        blob = query.astype("<f4").tobytes()
        sql = (
            "SELECT id FROM memories WHERE api_key_id = ? AND embedding IS NOT NULL"
            " ORDER BY vector_distance_cos(embedding, vector32(?)) LIMIT 20"
        )
        rows = [
            (
                "SQL brute force, vector_distance_cos",
                p50(lambda: db.query(sql, ("k1", blob)), 10),
            )
        ]
        index = cache.get("k1", 256, rows_of)
        rows.append(
            (
                "numpy matrix @ q + argpartition",
                p50(lambda: np.argpartition(-(index.similarities(query)), 20)[:20]),
            )
        )
        rows.append(
            (
                "vector tier per query (+ query embedding)",
                p50(lambda: tier.dense(embedder.embed([text])[0], who, engine.now_ms(), 0)),
            )
        )

        def cold() -> None:
            cache.clear()
            cache.get("k1", 256, rows_of)

        rows.append(("cold index build, 10k rows", p50(cold, 5)))

        def after_write() -> float:
            engine.memories.create(MemoryCreate(api_key_id="k1", content=corpus.memory()))
            engine.queues.embedding.drain()  # the embedding worker's part
            start = time.perf_counter()
            tier.dense(query, who, engine.now_ms(), 0)
            return (time.perf_counter() - start) * 1000

        rows.append(
            ("first query after one write", statistics.median(after_write() for _ in range(20)))
        )
        engine.close()
        db.close()
    print(f"\n{'method':<40} {'p50 ms':>8}")
    for label, ms in rows:
        print(f"{label:<40} {ms:>8.2f}")


if __name__ == "__main__":
    main()
