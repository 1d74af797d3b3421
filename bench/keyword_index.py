"""Keyword tier: the engine's FTS5 query vs a per-owner in-memory BM25 index (numpy).

Why: at 100,000 memories of which 10,000 belong to the key, the FTS5
``MATCH ... ORDER BY bm25`` of ``SearchRepository.keyword_scores`` is most of a
retrieval (docs/retrieval.md): FTS5 walks each query word's postings over every owner's
rows and computes BM25 for every match of the owner before keeping the best 200.

What it measures: an index built for owner "k1" alone, in numpy arrays, which reproduces
FTS5's score (``bm25(memory_fts, 0.5, 1.0, 0.5, 0.0)``: the same tokens, weights,
document lengths, global IDF and averages, ties by rowid). It prints:
- the index's cold build time and size (numpy arrays, and the stem dictionary);
- p50/p95 of the FTS5 query and of the index on the same selected terms, timed
  alternately query by query, and their ratio;
- agreement: how many queries give the identical top 200 (seqs and order), and the
  largest relative difference between the two scores of a row.

Documents and query words are tokenized by FTS5 itself (``porter unicode61
remove_diacritics 2``), through a private in-memory FTS5 table read back with
``fts5vocab 'instance'``, so the stems are FTS5's by construction.

Run: ``.venv/bin/python bench/keyword_index.py [--db PATH] [--queries N]``. Without
``--db`` it builds a database as ``bench/engine_bench.py`` does (``--memories`` /
``--for-key``, default 100,000 / 10,000) in a temporary directory; ``--db`` reuses a
file built that way (owner "k1"), which it only reads. It asserts nothing about time.

A measurement, not product code: the index is not wired into the engine.
"""

from __future__ import annotations

import argparse
import math
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engram"), str(ROOT / "bench")]

from engine_bench import Corpus, fill, open_engine, percentile  # noqa: E402

from engram.adapters.libsql import Database  # noqa: E402
from engram.adapters.libsql.fts import build_match  # noqa: E402
from engram.adapters.libsql.search import SearchRepository  # noqa: E402
from engram.adapters.libsql.sql import fts_owner_prefix  # noqa: E402
from engram.models import OwnerFilter  # noqa: E402
from engram.terms import query_terms  # noqa: E402

T = TypeVar("T")
R = TypeVar("R")

OWNER = "k1"
LIMIT = 200
K1, B = 1.2, 0.75  # FTS5's bm25 constants
# Column weights of the engine's bm25() call. The owner token weighs 0 but, being a
# column, still counts in the document length, so it is tokenized with the others.
COLUMNS = ("key", "content", "context", "owner_token")
WEIGHTS = {"key": 0.5, "content": 1.0, "context": 0.5}
TOKENIZE = "porter unicode61 remove_diacritics 2"  # memory_fts's (migration 0001)

FTS_SQL = (
    "SELECT rowid AS seq, bm25(memory_fts, 0.5, 1.0, 0.5, 0.0) AS bm25_score"
    " FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25_score LIMIT ?"
)  # word for word SearchRepository.keyword_scores


class Fts5Tokenizer:
    """FTS5's own tokenizer, reached through a private in-memory FTS5 table."""

    def __init__(self) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute(f"CREATE VIRTUAL TABLE q USING fts5(w, tokenize='{TOKENIZE}')")
        self.conn.execute("CREATE VIRTUAL TABLE qv USING fts5vocab(q, 'instance')")
        self._stems: dict[str, str | None] = {}

    def instances(self, rows: list[tuple[int, str, str, str, str]]) -> list[tuple[str, int, str]]:
        """(stem, seq, column) for every token of ``rows`` (seq, key, content, context,
        owner_token)."""
        cols = ", ".join(COLUMNS)
        self.conn.execute(f"CREATE VIRTUAL TABLE d USING fts5({cols}, tokenize='{TOKENIZE}')")
        self.conn.execute("CREATE VIRTUAL TABLE dv USING fts5vocab(d, 'instance')")
        self.conn.executemany(f"INSERT INTO d(rowid, {cols}) VALUES (?, ?, ?, ?, ?)", rows)
        found = self.conn.execute("SELECT term, doc, col FROM dv").fetchall()
        # The documents are not needed once tokenized: keep only the postings' memory.
        self.conn.execute("DROP TABLE dv")
        self.conn.execute("DROP TABLE d")
        return found

    def stem(self, word: str) -> str | None:
        """The stem FTS5 looks up for a one-word MATCH phrase (cached, as the engine
        caches ``index_term``); None if FTS5 finds no token in it."""
        if word not in self._stems:
            self.conn.execute("INSERT INTO q(rowid, w) VALUES (1, ?)", [word])
            row = self.conn.execute("SELECT term FROM qv ORDER BY offset LIMIT 1").fetchone()
            self.conn.execute("DELETE FROM q")
            self._stems[word] = row[0] if row else None
        return self._stems[word]


def varint(buf: bytes, i: int) -> tuple[int, int]:
    """SQLite's big-endian varint at ``buf[i]``: (value, next offset)."""
    value = 0
    for _ in range(8):
        byte = buf[i]
        i += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, i
    return (value << 8) | buf[i], i + 1


def fts5_averages(conn: sqlite3.Connection) -> tuple[int, float]:
    """(nRow, average document length) as FTS5's bm25 reads them: the averages record
    (id 1 of memory_fts_data) holds the row count, then a token total per column."""
    blob = conn.execute("SELECT block FROM memory_fts_data WHERE id = 1").fetchone()[0]
    nrow, i = varint(blob, 0)
    total = 0
    while i < len(blob):
        size, i = varint(blob, i)
        total += size
    return nrow, total / nrow


class OwnerIndex:
    """One owner's postings in CSR form: per stem, the row positions and weighted term
    frequency (the sum of column weights over occurrences, as FTS5's bm25 sums them)."""

    def __init__(self, rows: list[tuple[int, str, str, str, str]], tok: Fts5Tokenizer) -> None:
        self.seqs = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        position = {int(s): i for i, s in enumerate(self.seqs)}
        self.dl = np.zeros(len(rows))
        self.vocab: dict[str, int] = {}
        freq: dict[tuple[int, int], float] = {}
        for stem, seq, col in tok.instances(rows):
            r = position[seq]
            self.dl[r] += 1
            weight = WEIGHTS.get(col)
            if weight is None:  # the owner token: length only
                continue
            tid = self.vocab.setdefault(stem, len(self.vocab))
            freq[tid, r] = freq.get((tid, r), 0.0) + weight
        tids = np.fromiter((k[0] for k in freq), np.int32, len(freq))
        pos = np.fromiter((k[1] for k in freq), np.int32, len(freq))
        order = np.lexsort((pos, tids))
        self.rows = pos[order]
        # Sums of 0.5 and 1.0: exact in float32.
        self.tf = np.fromiter(freq.values(), np.float32, len(freq))[order]
        self.indptr = np.zeros(len(self.vocab) + 1, np.int64)
        np.cumsum(np.bincount(tids, minlength=len(self.vocab)), out=self.indptr[1:])

    def nbytes(self) -> tuple[int, int]:
        """Bytes of the numpy arrays, and of the stem dictionary (Python objects)."""
        arrays = sum(a.nbytes for a in (self.seqs, self.dl, self.rows, self.tf, self.indptr))
        words = sys.getsizeof(self.vocab) + sum(
            sys.getsizeof(k) + sys.getsizeof(v) for k, v in self.vocab.items()
        )
        return arrays, words

    def search(
        self, stems: Iterable[str], nrow: int, avgdl: float, doc_freq: dict[str, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(seqs, scores) of the best ``LIMIT`` rows containing any of ``stems``, best
        first, scores positive (FTS5's bm25 negated)."""
        norm = K1 * (1 - B + B * self.dl / avgdl)
        score = np.zeros(len(self.seqs))
        hit = np.zeros(len(self.seqs), bool)
        for stem in stems:
            tid = self.vocab.get(stem)
            if tid is None:
                continue
            a, b = self.indptr[tid], self.indptr[tid + 1]
            rows, f = self.rows[a:b], self.tf[a:b].astype(np.float64)
            n = doc_freq[stem]
            idf = math.log((nrow - n + 0.5) / (n + 0.5))
            idf = idf if idf > 0 else 1e-6  # FTS5's clamp for terms in half the rows or more
            score[rows] += idf * (f * (K1 + 1)) / (f + norm[rows])
            hit[rows] = True
        idx = np.flatnonzero(hit)
        s = score[idx]
        if len(idx) > LIMIT:
            # Keep every row tied with the LIMIT-th score, for the rowid tie-break below.
            cut = -np.partition(-s, LIMIT - 1)[LIMIT - 1]
            idx, s = idx[s >= cut], s[s >= cut]
        order = np.lexsort((self.seqs[idx], -s))[:LIMIT]
        return self.seqs[idx[order]], s[order]


def build_database(path: Path, memories: int, for_key: int, corpus: Corpus) -> None:
    engine, db = open_engine(path)
    fill(engine, memories, for_key, corpus)
    engine.close()
    db.close()


def run(path: Path, questions: list[str]) -> None:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db = Database(f"file:{path}")
    repo = SearchRepository(db)
    prefix = fts_owner_prefix(OwnerFilter((OWNER,), None))
    total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]

    t0 = time.perf_counter()
    rows = conn.execute(
        "SELECT seq, key, content, context, owner_token FROM memories"
        " WHERE api_key_id = ? ORDER BY seq",
        [OWNER],
    ).fetchall()
    t1 = time.perf_counter()
    tok = Fts5Tokenizer()
    index = OwnerIndex(rows, tok)
    t2 = time.perf_counter()
    nrow, avgdl = fts5_averages(conn)
    t3 = time.perf_counter()
    print(f"database: {path} ({total:,} memories, {len(rows):,} for {OWNER!r})")
    print(f"tokenizer: FTS5 '{TOKENIZE}' via a private in-memory table + fts5vocab 'instance'")
    print(
        f"cold build: {1000 * (t3 - t0):.0f} ms (read rows {1000 * (t1 - t0):.0f},"
        f" tokenize + index {1000 * (t2 - t1):.0f}, FTS5 averages {1000 * (t3 - t2):.2f})"
    )
    arrays, words = index.nbytes()
    print(
        f"index: {arrays / 1e6:.2f} MB of arrays + {words / 1e6:.2f} MB stem dictionary,"
        f" {len(index.rows):,} postings,"
        f" {len(index.vocab):,} stems; global nRow {nrow:,}, avgdl {avgdl:.2f}"
    )

    # Term selection and the stems' document frequencies happen before timing, for both
    # paths: the engine already selects terms (and caches those frequencies) upstream
    # of the keyword query, which is what is compared here.
    work: list[tuple[str, list[str]]] = []
    for q in questions:
        terms = query_terms(q)
        if not terms:
            continue
        selected = repo.selective_terms(terms)
        stems = [s for s in (tok.stem(t) for t in selected) if s is not None]
        work.append((f"{prefix}({build_match(selected)})", stems))
    doc_freq: dict[str, int] = {}
    for stem in {s for _, stems in work for s in stems}:
        row = conn.execute("SELECT doc FROM memory_fts_vocab WHERE term = ?", [stem]).fetchone()
        doc_freq[stem] = row[0] if row else 0

    def fts(match: str) -> list[tuple[int, float]]:
        return [(int(r["seq"]), -float(r["bm25_score"])) for r in db.query(FTS_SQL, [match, LIMIT])]

    def numpy_index(stems: list[str]) -> tuple[np.ndarray, np.ndarray]:
        return index.search(stems, nrow, avgdl, doc_freq)

    def timed(fn: Callable[[T], R], arg: T, into: list[float]) -> R:
        start = time.perf_counter()
        result = fn(arg)
        into.append(1000 * (time.perf_counter() - start))
        return result

    for match, stems in work[:20]:  # warm the page cache and statement caches
        fts(match)
        numpy_index(stems)
    fts_ms: list[float] = []
    idx_ms: list[float] = []
    identical, max_rel, results = 0, 0.0, []
    for i, (match, stems) in enumerate(tqdm(work, desc="queries", unit="q", leave=False)):
        # Alternate which goes first, so neither always runs on the other's warm caches.
        if i % 2 == 0:
            expected = timed(fts, match, fts_ms)
            seqs, scores = timed(numpy_index, stems, idx_ms)
        else:
            seqs, scores = timed(numpy_index, stems, idx_ms)
            expected = timed(fts, match, fts_ms)
        identical += [s for s, _ in expected] == seqs.tolist()
        mine = dict(zip(seqs.tolist(), scores.tolist(), strict=True))
        for seq, score in expected:
            if seq in mine:
                max_rel = max(max_rel, abs(mine[seq] - score) / max(abs(score), 1e-12))
        results.append(len(expected))

    f50, f95 = percentile(fts_ms, 50), percentile(fts_ms, 95)
    i50, i95 = percentile(idx_ms, 50), percentile(idx_ms, 95)
    print(f"\n{len(work)} queries (of {len(questions)}), top {LIMIT}, p50 / p95 in ms")
    print(f"  (a) FTS5 keyword_scores SQL {f50:8.3f} {f95:8.3f}")
    print(f"  (b) numpy owner index       {i50:8.3f} {i95:8.3f}")
    print(f"  ratio a/b                   {f50 / i50:7.1f}x {f95 / i95:7.1f}x")
    print(f"  FTS5 result count: median {percentile(results, 50):.0f}")
    print(f"agreement: identical top {LIMIT} (seqs and order) {identical}/{len(work)}")
    print(f"  max relative score difference {max_rel:.2e}")
    conn.close()
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
        run(args.db, questions)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "keyword_index.db"
        build_database(path, args.memories, args.for_key, corpus)
        run(path, questions)


if __name__ == "__main__":
    main()
