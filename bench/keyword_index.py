"""Keyword tier: FTS5 vs the per-owner in-memory postings (``keyword_index.py``).

Why: at 100,000 memories of which 10,000 belong to the key, FTS5's ``MATCH ... ORDER BY
bm25`` walks every owner's postings and is most of a hybrid retrieval; the engine now
scores the fusion's keyword candidates from the owner's postings in memory, which must
give FTS5's answer, faster (docs/retrieval.md).

What it measures, on the same file, in one process, queries timed alternately:
- the cold build of the owner's postings (read, tokenize, arrays) and their size;
- ``SearchRepository.keyword_scores`` p50/p95 with FTS5 alone and with the postings
  (each includes the term selection, stems, version check and averages read), and the
  ratio;
- the same after every write: a memory written through another connection before each
  query (the refresh path: one row tokenized and added to the delta);
- agreement: how many queries give the identical top 200 (seqs and order, scores to
  1e-9) as FTS5.

Run: ``.venv/bin/python bench/keyword_index.py [--db PATH] [--queries N]``. Without
``--db`` it builds a database as ``bench/engine_bench.py`` does (``--memories`` /
``--for-key``, default 100,000 / 10,000) in a temporary directory; with ``--db`` a file
built that way (owner "k1") is used as is, except the write phase, which it skips.
It asserts nothing about time.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engram"), str(ROOT / "bench")]

from engine_bench import Corpus, fill, open_engine, percentile  # noqa: E402

from engram import Engine  # noqa: E402
from engram.adapters.libsql import Database, KeywordIndexCache, SearchRepository  # noqa: E402
from engram.domain.models import MemoryCreate, OwnerFilter  # noqa: E402

OWNER = "k1"
LIMIT = 200
WHO = OwnerFilter((OWNER,))

Scores = list[tuple[int, float]]


def same(a: Scores, b: Scores) -> bool:
    return [s for s, _ in a] == [s for s, _ in b] and all(
        abs(x - y) <= 1e-9 * max(abs(x), 1e-12) for (_, x), (_, y) in zip(a, b, strict=True)
    )


def compare(
    questions: list[str], fts: SearchRepository, idx: SearchRepository, before: Callable[[], None]
) -> tuple[list[float], list[float], int]:
    fts_ms: list[float] = []
    idx_ms: list[float] = []
    identical = 0
    for i, q in enumerate(tqdm(questions, desc="queries", unit="q", leave=False)):
        before()
        timings: dict[str, float] = {}
        results: dict[str, Scores] = {}
        # Alternate which goes first, so neither always runs on the other's warm caches.
        for name, repo in (
            (("fts", fts), ("idx", idx)) if i % 2 == 0 else (("idx", idx), ("fts", fts))
        ):
            start = time.perf_counter()
            results[name] = repo.keyword_scores(q, WHO, LIMIT)
            timings[name] = 1000 * (time.perf_counter() - start)
        fts_ms.append(timings["fts"])
        idx_ms.append(timings["idx"])
        identical += same(results["fts"], results["idx"])
    return fts_ms, idx_ms, identical


def report(label: str, fts_ms: list[float], idx_ms: list[float], identical: int) -> None:
    f50, f95 = percentile(fts_ms, 50), percentile(fts_ms, 95)
    i50, i95 = percentile(idx_ms, 50), percentile(idx_ms, 95)
    print(f"\n{label}: {len(fts_ms)} queries, top {LIMIT}, p50 / p95 in ms")
    print(f"  (a) FTS5 alone          {f50:8.3f} {f95:8.3f}")
    print(f"  (b) in-memory postings  {i50:8.3f} {i95:8.3f}")
    print(f"  ratio a/b               {f50 / i50:7.1f}x {f95 / i95:7.1f}x")
    print(f"  identical top {LIMIT}: {identical}/{len(fts_ms)}")


def run(path: Path, questions: list[str], corpus: Corpus, engine: Engine | None) -> None:
    db = Database(f"file:{path}")
    total = db.scalar("SELECT count(*) FROM memories")
    mine = db.scalar("SELECT count(*) FROM memories WHERE api_key_id = ?", (OWNER,))
    print(f"database: {path} ({total:,} memories, {mine:,} for {OWNER!r})")
    cache = KeywordIndexCache(256 << 20, background=False)
    fts = SearchRepository(db)
    idx = SearchRepository(db, keywords=cache)

    start = time.perf_counter()
    idx.keyword_scores(questions[0], WHO, LIMIT)  # builds the owner's postings inline
    print(f"cold build (read + tokenize + arrays): {1000 * (time.perf_counter() - start):.0f} ms")
    print(f"postings: {cache.nbytes / 1e6:.2f} MB (arrays and Python objects, estimated)")
    for q in questions[:20]:  # warm the page cache and statement caches
        fts.keyword_scores(q, WHO, LIMIT)
        idx.keyword_scores(q, WHO, LIMIT)

    report("read only", *compare(questions, fts, idx, lambda: None))
    if engine is None:
        print("\n(--db: the write phase is skipped, the file is only read)")
        db.close()
        return
    written = iter(range(10**9))

    def write() -> None:
        n = next(written)
        engine.memories.create(
            MemoryCreate(api_key_id=OWNER, key=f"w:{n}", content=corpus.memory(), session_id="s")
        )

    half = questions[: len(questions) // 2]
    report("a memory written before each query", *compare(half, fts, idx, write))
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="an existing database (only read)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--for-key", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    corpus = Corpus(random.Random(args.seed))
    # Drawn before the fill, as engine_bench does, so --db and a fresh build ask the same.
    questions = [corpus.question() for _ in range(args.queries)]
    if args.db:
        run(args.db, questions, corpus, None)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "keyword_index.db"
        engine, db = open_engine(path)
        fill(engine, args.memories, args.for_key, corpus)
        db.close()
        run(path, questions, corpus, engine)
        engine.close()


if __name__ == "__main__":
    main()
