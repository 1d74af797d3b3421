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
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator

from engram.adapters.libsql.database import Database
from engram.adapters.libsql.fts5_tokens import Fts5Tokenizer, Tokens, fts5_averages
from engram.adapters.libsql.postings import OwnerKeywords, Query
from engram.adapters.libsql.sql import owner_sql
from engram.adapters.libsql.versions import current_version, owner_state, tombstones_since

__all__ = ["KeywordIndexCache"]

log = logging.getLogger(__name__)

# A refresh with more changed rows than this drops the index for a background rebuild:
# tokenizing is ~0.1 ms a row, done under the cache's lock on the request path.
_REBUILD_ROWS = 200
# Postings not queried for a day are rebuilt rather than refreshed: tombstones are kept
# 15 days (maintenance), and a refresh needs every one since the postings' version.
_MAX_IDLE_S = 86_400.0
_BUILD_PAGE = 250  # rows read and tokenized at a time by a build
_RETRY_S = 60.0  # after a failed build, FTS5 serves the owner this long before a retry


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
