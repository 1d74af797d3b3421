"""Engine benchmark: upsert throughput and keyword retrieval latency on real libSQL files.

Prints a table; asserts nothing about time (this machine is noisy). Each figure
comes with a baseline measured in the same process on the same file:
- upserts: the engine's upsert (select + insert/update in one transaction, with
  validation and FTS triggers) vs a bare ``INSERT`` + commit through ``libsql``;
- retrieval: the engine's full hybrid retrieval (query parsing, owner/expiry/
  retention filters, BM25, recent fill, budget walk, hit counter) vs the bare
  FTS5 ``MATCH ... ORDER BY bm25`` of the same terms with no filters.

The two retrievals run in alternating blocks of ``--block`` queries (both see the
same drift of a shared machine). They used to alternate query by query, but the bare
query walks every one of 100,000 rows' postings (~90 ms), which pushes the engine's
vector matrix and pages out of the CPU cache before each engine query: that measured
a process that scans the whole table between any two of its queries, ~1.4 ms more per
engine query at 10,000 among 100,000 (docs/retrieval.md). ``--block 1`` measures it so.

Run: ``make bench`` or ``.venv/bin/python bench/engine_bench.py [--queries N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from engram import Config, Engine, MemorySettingsUpdate
from engram import open_engine as build
from engram.adapters.libsql import Database
from engram.adapters.libsql.fts import build_match
from engram.domain.models import MemoryCreate, RetrievalRequest, Strategy


def make_vocabulary(rng: random.Random, size: int = 5000) -> list[str]:
    """Pronounceable pseudo-words: a vocabulary as large as real conversation text."""
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class Corpus:
    """Memories and questions whose words follow Zipf's law, as natural text does.

    Every memory and every question also contain "user": the worst case of one word
    (say, the user's name) present everywhere, which the engine leaves out of the query
    when other words remain (BM25 weighs it ~0; see ``MemoryRepository.selective_terms``).
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.words = make_vocabulary(rng)
        self.weights = [1 / (rank + 1) ** 1.07 for rank in range(len(self.words))]

    def memory(self) -> str:
        return "user " + " ".join(self.rng.choices(self.words, self.weights, k=12))

    def question(self) -> str:
        return "what did the user say about " + " ".join(
            self.rng.choices(self.words, self.weights, k=3)
        )


def percentile(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


def open_engine(path: Path) -> tuple[Engine, Database]:
    """An engine on a fresh file, and a second connection for the bare baselines. Writes
    queue their embedding jobs as in production; nothing processes them while timing."""
    url = f"file:{path}"
    engine = build(Config(db_url=url), jobs="manual")
    return engine, Database(url)


def use_vectors(engine: Engine, on: bool) -> None:
    """Static embedder on (the default) or off (the keyword tier alone); with it on, every
    memory gets its vector before timing starts (what the embedding worker does)."""
    engine.settings.update(MemorySettingsUpdate(static_enabled=on))
    if on:
        total = engine.vectors.rows.pending_count()
        with tqdm(total=total, desc="embed", unit="mem", leave=False) as bar:
            while True:
                result = engine.vectors.reindex(max_seconds=5)
                bar.update(result.processed)
                if not result.pending:
                    break


def bench_upserts(tmp: Path, n: int, corpus: Corpus) -> tuple[float, float]:
    engine, db = open_engine(tmp / "upserts.db")
    items = [
        MemoryCreate(api_key_id="k1", key=f"fact:{i % (n // 2)}", content=corpus.memory())
        for i in range(n)
    ]  # half of them hit an existing key: a real mix of inserts and in-place updates
    start = time.perf_counter()
    for item in tqdm(items, desc="single upserts", unit="op", leave=False):
        engine.memories.upsert(item)
    engine_rate = n / (time.perf_counter() - start)

    db.execute("CREATE TABLE raw (id INTEGER PRIMARY KEY, content TEXT)")
    start = time.perf_counter()
    for item in items:
        db.execute("INSERT INTO raw (content) VALUES (?)", (item.content,))
    raw_rate = n / (time.perf_counter() - start)
    engine.close()
    db.close()
    return engine_rate, raw_rate


def fill(engine: Engine, total: int, for_key: int, corpus: Corpus) -> None:
    owners = ["k1"] * for_key + [f"other{i % 9}" for i in range(total - for_key)]
    corpus.rng.shuffle(owners)
    batch = 1000
    with tqdm(total=total, desc=f"ingest {total:,}", unit="mem", leave=False) as bar:
        for start in range(0, total, batch):
            chunk = owners[start : start + batch]
            engine.memories.upsert_many(
                [
                    MemoryCreate(api_key_id=o, key=f"m:{start + i}", content=corpus.memory())
                    for i, o in enumerate(chunk)
                ]
            )
            bar.update(len(chunk))


def wait_for_keywords(engine: Engine, owner: str) -> None:
    """Until the owner's in-memory keyword postings are built (in the background, from the
    first query on; FTS5 answers meanwhile): what a warm process serves from."""
    keywords = getattr(engine.retrieval.search, "keywords", None)
    if keywords is not None and not keywords.wait_built(owner, 600):
        raise SystemExit(f"the keyword postings of {owner} were never built")


def bench_retrieval(
    engine: Engine, db: Database, queries: list[str], block: int
) -> tuple[list[float], list[float]]:
    engine_ms, raw_ms = [], []
    request = RetrievalRequest  # bound once: building the model is part of the measured path
    for q in queries[:20]:  # warm the page cache and statement caches
        engine.retrieval.retrieve("k1", request(query=q, strategy=Strategy.HYBRID))
    wait_for_keywords(engine, "k1")
    with tqdm(total=len(queries), desc="queries", unit="q", leave=False) as progress:
        for start in range(0, len(queries), block):
            chunk = queries[start : start + block]
            for q in chunk:
                t0 = time.perf_counter()
                engine.retrieval.retrieve("k1", request(query=q, strategy=Strategy.HYBRID))
                engine_ms.append((time.perf_counter() - t0) * 1000)
            for q in chunk:
                t0 = time.perf_counter()
                db.query(
                    "SELECT rowid, bm25(memory_fts) AS r FROM memory_fts WHERE memory_fts MATCH ?"
                    " ORDER BY r LIMIT 20",
                    (build_match(q),),
                )
                raw_ms.append((time.perf_counter() - t0) * 1000)
            progress.update(len(chunk))
    return engine_ms, raw_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--upserts", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--block", type=int, default=50, help="queries per block of each kind (1: alternate)"
    )
    args = parser.parse_args()
    if args.block < 1:
        parser.error("--block must be at least 1")
    corpus = Corpus(random.Random(args.seed))
    queries = [corpus.question() for _ in range(args.queries)]

    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        engine_rate, raw_rate = bench_upserts(tmp, args.upserts, corpus)
        rows = []
        for total, for_key in [(1_000, 1_000), (10_000, 10_000), (100_000, 10_000)]:
            engine, db = open_engine(tmp / f"r{total}.db")
            fill(engine, total, for_key, corpus)
            for mode in ("keyword", "static"):
                use_vectors(engine, mode == "static")
                engine_ms, raw_ms = bench_retrieval(engine, db, queries, args.block)
                rows.append((total, for_key, mode, engine_ms, raw_ms))
            engine.close()
            db.close()

    print(f"\nupserts ({args.upserts:,} single calls, half updates, one transaction each)")
    print(f"  engine upsert      {engine_rate:10,.0f} /s")
    print(f"  bare INSERT+commit {raw_rate:10,.0f} /s   (engine = {engine_rate / raw_rate:.2f}x)")
    print(f"\nhybrid retrieval, {args.queries} queries in blocks of {args.block}, p50 / p95 in ms")
    print("  keyword: the keyword tier alone (static embedder off)")
    print("  static:  the default: BM25 + static-embedding cosine, weighted fusion")
    header = f"{'memories':>9} {'for key':>8} {'tier':>8} | {'engine p50':>10} {'p95':>7} |"
    print(header + f" {'bare FTS p50':>12} {'p95':>7} | {'p50 ratio':>9}")
    for total, for_key, mode, engine_ms, raw_ms in rows:
        e50, e95 = percentile(engine_ms, 50), percentile(engine_ms, 95)
        r50, r95 = percentile(raw_ms, 50), percentile(raw_ms, 95)
        print(
            f"{total:>9,} {for_key:>8,} {mode:>8} | {e50:>10.2f} {e95:>7.2f} |"
            f" {r50:>12.2f} {r95:>7.2f} | {e50 / r50:>8.1f}x"
        )


if __name__ == "__main__":
    main()
