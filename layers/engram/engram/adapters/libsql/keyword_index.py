"""Per-owner keyword postings in memory: FTS5's own BM25 for one owner's rows.

Why: FTS5 scores a query by walking each query word's postings over *every* owner's
rows (and, for the IDF, the owner token's whole doclist) before it keeps the owner's
best 200: at 10,000 memories of the key among 100,000 that was most of a hybrid
retrieval (docs/retrieval.md, "Latency"). The owner's postings in numpy arrays score
the same rows in a tenth of the time.

Same answer by construction, not by approximation:
- documents and query words are tokenized by FTS5 itself (a private in-memory FTS5
  table with ``memory_fts``'s tokenizer, read back through ``fts5vocab 'instance'``);
- a row's term frequency is the sum of the column weights of its occurrences (key 0.5,
  content 1.0, context 0.5, owner token 0: the weights of the engine's ``bm25()``
  call), its length counts every column's tokens, owner token included;
- IDF is global, as FTS5's: the row count and average length are read from FTS5's
  averages record on every query, document frequencies from ``memory_fts_vocab``
  (cached by the caller for 300 s, like the term selection that reads them: rows whose
  scores differ by less than that lag moves them may be ordered otherwise than FTS5's
  of the moment);
- ties go to the lower rowid.

Freshness works as the vector index's (``vector_index.py``): each write bumps the
owner's version and stamps the rows it wrote (a neighbour's rewritten ``context``
included), a deletion leaves a tombstone, and a query first compares versions and
applies only what changed. Changed rows go to a small delta beside the main arrays
(dead positions masked); the delta and the dead are folded into the arrays once they
grow past a tenth of the rows.

Building an owner's postings costs ~0.5-1 s per 10,000 memories (reading and
tokenizing every row), so it happens off the request path: an owner's queries go to
FTS5 until a background thread has built them (``background=False`` builds inline,
for tests and benchmarks).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engram.adapters.libsql.database import Database
from engram.adapters.libsql.fts5_tokens import Fts5Tokenizer, Tokens, fts5_averages
from engram.adapters.libsql.sql import owner_sql
from engram.adapters.libsql.versions import current_version, owner_state, tombstones_since

__all__ = ["KeywordIndexCache", "OwnerKeywords", "Query"]

log = logging.getLogger(__name__)

K1, B = 1.2, 0.75  # FTS5's bm25 constants
_IDF_FLOOR = 1e-6  # FTS5's clamp for a term in half the rows or more
_FOLD_SHARE = 0.1  # fold the delta and the dead once they reach a tenth of the rows
_FOLD_MIN = 256
# A refresh with more changed rows than this drops the index for a background rebuild:
# tokenizing is ~0.1 ms a row, done under the cache's lock on the request path.
_REBUILD_ROWS = 200
# Postings not queried for a day are rebuilt rather than refreshed: tombstones are kept
# 15 days (maintenance), and a refresh needs every one since the postings' version.
_MAX_IDLE_S = 86_400.0
_BUILD_PAGE = 250  # rows read and tokenized at a time by a build
_RETRY_S = 60.0  # after a failed build, FTS5 serves the owner this long before a retry

Array = Any  # numpy arrays; numpy's typing of fancy indexing adds nothing here


@dataclass(frozen=True)
class Query:
    """What one keyword query needs besides the owner's postings: the FTS5 stem of each
    query phrase (repeats kept: FTS5 scores each phrase), their global document
    frequencies, and the global row count and average length."""

    stems: list[str]
    doc_freq: dict[str, int]
    rows: int
    avgdl: float


class OwnerKeywords:
    """One owner's postings: main arrays in CSR form (per stem id, positions and weighted
    frequencies) plus a delta of rows written since the last fold."""

    def __init__(self, owner: str, version: int = 0) -> None:
        self.owner = owner
        self.version = version
        self.used = time.monotonic()  # when a query last read them
        self._vocab: dict[str, int] = {}
        self._next_tid = 0  # ids are not reused: a purge leaves gaps until the next fold
        self._load(np.zeros(0, np.int64), np.zeros(0), [], [], [])

    def _load(
        self,
        seq: Array,
        length: Array,
        tids: Sequence[int] | Array,
        rows: Sequence[int] | Array,
        tf: Sequence[float] | Array,
    ) -> None:
        """Main arrays from postings (stem id, position, frequency); no delta, no dead."""
        self._seq, self._length, self._n = seq, length, len(seq)
        self._alive = np.ones(self._n, dtype=bool)
        self._position = {s: i for i, s in enumerate(seq.tolist())}
        tid_array = np.asarray(tids, dtype=np.int64)
        row_array = np.asarray(rows, dtype=np.int32)
        order = np.lexsort((row_array, tid_array))
        self._rows = row_array[order]
        self._tf = np.asarray(tf, dtype=np.float32)[order]  # sums of halves: exact
        self._indptr = np.zeros(self._next_tid + 1, dtype=np.int64)
        np.cumsum(np.bincount(tid_array, minlength=self._next_tid), out=self._indptr[1:])
        self._delta: dict[int, list[tuple[int, float]]] = {}
        self._delta_rows = 0
        self._dead = 0

    @classmethod
    def build(cls, owner: str, version: int, pages: Iterable[Tokens]) -> OwnerKeywords:
        """Postings from tokenized pages of rows. Each page is made arrays as it comes
        (a stem string kept once, in the vocabulary): Python lists of a whole key's
        postings took ~12 KB a row while building, eight times the finished postings."""
        index = cls(owner, version)
        vocab = index._vocab
        parts: tuple[list[Array], ...] = ([], [], [], [], [])
        for tokens in pages:
            for part, array in zip(
                parts,
                (
                    np.fromiter(tokens.lengths, np.int64, len(tokens.lengths)),
                    np.fromiter(tokens.lengths.values(), np.float64, len(tokens.lengths)),
                    np.fromiter(
                        (vocab.setdefault(s, len(vocab)) for s in tokens.stems),
                        np.int64,
                        len(tokens.stems),
                    ),
                    np.asarray(tokens.seqs, dtype=np.int64),
                    np.asarray(tokens.weights, dtype=np.float32),
                ),
                strict=True,
            ):
                part.append(array)
        seqs, lengths, tids, row_seqs, weights = (
            np.concatenate(part) if part else np.zeros(0) for part in parts
        )
        order = np.argsort(seqs, kind="stable")
        seqs, lengths = seqs[order].astype(np.int64), lengths[order]
        index._next_tid = len(vocab)
        rows = np.searchsorted(seqs, row_seqs)
        index._load(seqs, lengths, tids.astype(np.int64), rows, weights)
        return index

    @property
    def size(self) -> int:
        return len(self._position)

    @property
    def nbytes(self) -> int:
        arrays = (self._seq, self._length, self._alive, self._indptr, self._rows, self._tf)
        # Python objects: ~100 bytes a stem in the vocabulary or a row's position, ~70 a
        # delta posting.
        delta = sum(len(p) for p in self._delta.values())
        objects = 100 * (len(self._vocab) + len(self._position)) + 70 * delta
        return sum(a.nbytes for a in arrays) + objects

    # -- writes -----------------------------------------------------------------------

    def apply(self, tokens: Tokens, dead: Iterable[int]) -> None:
        """Rows written (tokenized) and rows deleted since the last refresh.

        A deletion's words leave memory with it (forgetting promises nothing of a
        forgotten memory is left anywhere): the stems no live row holds any more are
        purged from the vocabulary at once, not at the next fold."""
        deleted = False
        for seq in dead:
            self._kill(seq)
            deleted = True
        by_row: dict[int, list[tuple[str, float]]] = {s: [] for s in tokens.lengths}
        for stem, seq, weight in zip(tokens.stems, tokens.seqs, tokens.weights, strict=True):
            by_row[seq].append((stem, weight))
        for seq, stems in by_row.items():
            self._kill(seq)
            self._add(seq, stems, tokens.lengths[seq])
        if self._delta_rows + self._dead >= max(_FOLD_MIN, _FOLD_SHARE * self._n):
            self._fold()
        elif deleted:
            self._purge()

    def _kill(self, seq: int) -> None:
        pos = self._position.pop(seq, None)
        if pos is not None:
            self._alive[pos] = False
            self._dead += 1

    def _add(self, seq: int, stems: list[tuple[str, float]], length: int) -> None:
        if self._n == len(self._seq):
            capacity = max(64, 2 * self._n)
            self._seq = np.resize(self._seq, capacity)
            self._length = np.resize(self._length, capacity)
            alive = np.zeros(capacity, dtype=bool)
            alive[: self._n] = self._alive[: self._n]
            self._alive = alive
        pos = self._n
        self._n += 1
        self._seq[pos], self._length[pos], self._alive[pos] = seq, length, True
        self._position[seq] = pos
        for stem, tf in stems:
            tid = self._vocab.get(stem)
            if tid is None:
                tid = self._vocab[stem] = self._next_tid
                self._next_tid += 1
            self._delta.setdefault(tid, []).append((pos, tf))
        self._delta_rows += 1

    def _fold(self) -> None:
        """Main arrays rebuilt from the live postings (main and delta); positions
        renumbered so the dead leave."""
        n = self._n
        delta = [(t, p, f) for t, posts in self._delta.items() for p, f in posts]
        tids = np.concatenate(
            [
                self._main_tids(),
                np.fromiter((t for t, _, _ in delta), np.int64, len(delta)),
            ]
        )
        rows = np.concatenate(
            [self._rows.astype(np.int64), np.fromiter((p for _, p, _ in delta), np.int64)]
        )
        tf = np.concatenate([self._tf, np.fromiter((f for _, _, f in delta), np.float32)])
        alive = self._alive[:n]
        keep = alive[rows]
        renumber = np.cumsum(alive) - 1
        seq, length = self._seq[:n][alive], self._length[:n][alive]
        # Stem ids renumbered too: the stems only dead rows held leave the vocabulary.
        kept = tids[keep]
        held = np.bincount(kept, minlength=self._next_tid) > 0
        new_id = np.cumsum(held) - 1
        self._vocab = {s: int(new_id[t]) for s, t in self._vocab.items() if held[t]}
        self._next_tid = len(self._vocab)
        self._load(seq, length, new_id[kept], renumber[rows[keep]], tf[keep])

    def _main_tids(self) -> Array:
        """The stem id of each posting of the main arrays (CSR expanded)."""
        return np.repeat(np.arange(len(self._indptr) - 1, dtype=np.int64), np.diff(self._indptr))

    def _purge(self) -> None:
        """Dead rows' postings out of the delta, and the stems no live row holds out of
        the vocabulary (their main postings stay, unreachable, until the next fold)."""
        alive = self._alive[: self._n]
        main_tids = self._main_tids()
        held = np.zeros(self._next_tid, dtype=bool)
        held[main_tids[alive[self._rows]]] = True
        for tid, posts in list(self._delta.items()):
            live = [(p, f) for p, f in posts if alive[p]]
            if live:
                self._delta[tid] = live
                held[tid] = True
            else:
                del self._delta[tid]
        self._vocab = {s: t for s, t in self._vocab.items() if held[t]}

    # -- reads ------------------------------------------------------------------------

    def _postings(self, stem: str) -> tuple[Array, Array]:
        """Positions (dead ones included) and weighted frequencies of ``stem``."""
        tid = self._vocab.get(stem)
        if tid is None:
            return np.zeros(0, np.int64), np.zeros(0)
        rows: Array = np.zeros(0, np.int64)
        tf: Array = np.zeros(0)
        if tid + 1 < len(self._indptr):
            a, b = self._indptr[tid], self._indptr[tid + 1]
            rows, tf = self._rows[a:b], self._tf[a:b].astype(np.float64)
        extra = self._delta.get(tid)
        if extra:
            rows = np.concatenate([rows, np.fromiter((p for p, _ in extra), np.int64)])
            tf = np.concatenate([tf, np.fromiter((f for _, f in extra), np.float64)])
        return rows, tf

    def search(self, query: Query, limit: int) -> list[tuple[int, float]]:
        """(seq, bm25) of the best ``limit`` live rows containing any stem, best first;
        bm25 negative as FTS5's (lower is better)."""
        n = self._n
        if not n or query.rows <= 0 or query.avgdl <= 0:
            return []
        alive = self._alive[:n]
        score = np.zeros(n)
        hit = np.zeros(n, dtype=bool)
        for stem in query.stems:
            rows, tf = self._postings(stem)
            live = int(np.count_nonzero(alive[rows]))
            if not live:
                continue
            # A frequency cached before the owner's newest rows may be lower than what the
            # owner alone holds now: the IDF never counts fewer rows than that.
            # Nor more than the rows there are: a frequency cached before deletions may be.
            df = min(max(query.doc_freq.get(stem, 0), live), query.rows)
            idf = math.log((query.rows - df + 0.5) / (df + 0.5))
            idf = idf if idf > 0 else _IDF_FLOOR
            norm = K1 * (1 - B + B * self._length[rows] / query.avgdl)
            # FTS5's own order of operations (fts5_aux.c): equal scores stay equal.
            score[rows] += idf * ((tf * (K1 + 1.0)) / (tf + norm))
            hit[rows] = True
        found = np.flatnonzero(hit & alive)
        values = score[found]
        if len(found) > limit:
            # Keep every row tied with the limit-th score, for the rowid tie-break below.
            cut = -np.partition(-values, limit - 1)[limit - 1]
            found, values = found[values >= cut], values[values >= cut]
        order = np.lexsort((self._seq[found], -values))[:limit]
        seqs: list[int] = self._seq[found[order]].tolist()
        return list(zip(seqs, (-values[order]).tolist(), strict=True))


def _pages(db: Database, owner: str) -> Iterator[Tokens]:
    """Every row of the owner tokenized, a page at a time (the lock and the GIL are never
    held for long). Read after the owner's version: a row written meanwhile is read again
    by the next refresh (its version is newer), a row deleted meanwhile has a newer
    tombstone. So no snapshot transaction is needed."""
    where, params = owner_sql(owner, alias="")
    tokenizer = Fts5Tokenizer()
    after = -1
    while True:
        page = db.query(
            "SELECT seq, key, content, context, owner_token FROM memories"
            f" WHERE {where} AND seq > ? ORDER BY seq LIMIT ?",
            (*params, after, _BUILD_PAGE),
        )
        if not page:
            return
        yield tokenizer.documents(page)
        after = int(page[-1]["seq"])


class KeywordIndexCache:
    """Owners' keyword postings, least recently used evicted past ``max_bytes``, kept
    current with the owner versions. One lock over the indexes and the query tokenizer,
    which the process's threads share; a build tokenizes with its own."""

    def __init__(self, max_bytes: int, *, background: bool = True) -> None:
        self.max_bytes = max_bytes
        self.background = background
        self._indexes: OrderedDict[str, OwnerKeywords] = OrderedDict()
        self._building: set[str] = set()
        self._failed: dict[str, float] = {}  # owner -> monotonic time of a failed build
        self._tokenizer: Fts5Tokenizer | None = None
        self._lock = threading.Lock()
        # Told whenever a build ends, built or not: who waits for one waits on this.
        self._settled = threading.Condition(self._lock)

    def stems(self, words: list[str]) -> list[str] | None:
        """FTS5's stem of each query word; None if any is not one token (the caller then
        asks FTS5 itself)."""
        with self._lock:
            tokenizer = self._tokenize()
            stems = [tokenizer.stem(w) for w in words]
        return None if any(s is None for s in stems) else [s for s in stems if s]

    def search(
        self, db: Database, owner: str, stems: list[str], doc_freq: dict[str, int], limit: int
    ) -> list[tuple[int, float]] | None:
        """The owner's best ``limit`` rows for ``stems`` (FTS5 stems), as FTS5 ranks them;
        None while the owner's postings are not built (the caller asks FTS5)."""
        if not self._ready(db, owner):
            return None
        state = owner_state(db, owner)
        version = state.version
        averages = state.fts_averages
        if not state.fts_readable:  # raise what FTS5's tables say, as the FTS5 query would
            averages = db.scalar("SELECT block FROM memory_fts_data WHERE id = 1")
        rows, avgdl = fts5_averages(averages)
        with self._lock:
            index = self._indexes.get(owner)
            if index is None:  # evicted since
                return None
            now = time.monotonic()
            if now - index.used > _MAX_IDLE_S:
                del self._indexes[owner]
                fresh = False
            else:
                index.used = now
                self._indexes.move_to_end(owner)
                # Versions only grow: postings another thread brought past this
                # retrieval's version are newer, not stale.
                fresh = index.version >= version or self._refresh(db, index, version)
            if fresh:
                found = index.search(Query(stems, doc_freq, rows, avgdl), limit)
                self._evict()
                return found
        self._ready(db, owner)  # rebuild: FTS5 answers meanwhile
        return None

    def refresh(self, db: Database, owner: str) -> None:
        """Bring the owner's postings (if this process has them) up to its version now,
        not at its next query: a deletion's words leave memory with it."""
        with self._lock:
            index = self._indexes.get(owner)
            if index is not None:
                version = current_version(db, owner)
                if index.version != version:
                    self._refresh(db, index, version)

    def ready(self, owner: str) -> bool:
        with self._lock:
            return owner in self._indexes

    def wait_built(self, owner: str, timeout_s: float) -> bool:
        """Whether the owner's postings are built, once a build under way has ended (at
        most ``timeout_s``): for a benchmark or a test that needs a warm process."""
        with self._settled:
            self._settled.wait_for(
                lambda: owner in self._indexes or owner not in self._building, timeout_s
            )
            return owner in self._indexes

    def _ready(self, db: Database, owner: str) -> bool:
        """Whether the owner's postings are built; starts building them if not."""
        with self._lock:
            if owner in self._indexes:
                return True
            if self._building:  # one build at a time: each holds a key's rows while it runs
                return False
            failed = self._failed.get(owner)
            if failed is not None and time.monotonic() - failed < _RETRY_S:
                return False
            self._building.add(owner)
        if not self.background:
            self._build(db, owner)
            return self.ready(owner)
        thread = threading.Thread(
            target=self._build, args=(db, owner), name="engram-keywords", daemon=True
        )
        try:
            thread.start()
        except RuntimeError as exc:  # no thread to be had: FTS5 serves, retried later
            self._not_built(owner, exc)
            self._settle(owner)
        return False

    def _settle(self, owner: str, index: OwnerKeywords | None = None) -> None:
        """A build of the owner's postings has ended: installed (``index``) or not."""
        with self._lock:
            self._building.discard(owner)
            if index is not None:
                self._failed.pop(owner, None)
                self._indexes[owner] = index
                self._evict()
            self._settled.notify_all()

    def _not_built(self, owner: str, exc: Exception) -> None:
        log.warning("keyword postings of an owner not built; FTS5 serves it: %s", exc)
        with self._lock:
            self._failed[owner] = time.monotonic()

    def _build(self, db: Database, owner: str) -> None:
        """Read and tokenize every row of the owner, then install the postings. Read
        through a connection of its own (``Database.sibling``): the requests served
        meanwhile never wait for its pages."""
        started = time.perf_counter()
        reader: Database | None = None
        index: OwnerKeywords | None = None
        try:
            reader = db.sibling()
            version = current_version(reader, owner)
            index = OwnerKeywords.build(owner, version, _pages(reader, owner))
        except Exception as exc:  # any failure leaves FTS5 answering, and is retried
            self._not_built(owner, exc)
            return
        finally:
            if reader is not None and reader is not db:
                reader.close()
            self._settle(owner, index)
        log.debug(
            "keyword postings built: %d rows in %.0f ms",
            index.size,
            1000 * (time.perf_counter() - started),
        )

    def _refresh(self, db: Database, index: OwnerKeywords, current: int) -> bool:
        """Apply what changed since the index's version up to ``current`` (the owner's
        version, read by the caller before this); False (index dropped, a build started)
        when so much changed that rebuilding off the request path is cheaper.

        The version is read first, as in ``_build``: what is written meanwhile is read
        again by the next refresh, so no snapshot transaction (and no lock) is needed."""
        owner = index.owner
        where, params = owner_sql(owner, alias="")
        # One round trip to a server: at most one row past the bound, which says enough.
        rows, dead = db.query_batch(
            [
                (
                    "SELECT seq, key, content, context, owner_token FROM memories"
                    f" WHERE {where} AND version > ? LIMIT {_REBUILD_ROWS + 1}",
                    (*params, index.version),
                ),
                tombstones_since(owner, index.version),
            ]
        )
        if len(rows) > _REBUILD_ROWS:
            del self._indexes[owner]
            return False
        index.apply(self._tokenize().documents(rows), (int(r["seq"]) for r in dead))
        index.version = current
        return True

    def _evict(self) -> None:
        while len(self._indexes) > 1 and self._nbytes() > self.max_bytes:
            self._indexes.popitem(last=False)

    def _tokenize(self) -> Fts5Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = Fts5Tokenizer()
        return self._tokenizer

    def _nbytes(self) -> int:
        return sum(i.nbytes for i in self._indexes.values())

    @property
    def nbytes(self) -> int:
        with self._lock:
            return self._nbytes()

    def clear(self) -> None:
        with self._lock:
            self._indexes.clear()
