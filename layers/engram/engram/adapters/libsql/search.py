"""Reads for retrieval: keyword search (FTS5), recency, rows by id (the ``SearchIndex``
port). Every query carries the owner condition (``owner_sql`` / the FTS owner token)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from cachetools import TTLCache

from engram.adapters.libsql.database import Database
from engram.adapters.libsql.fts import build_match, index_term, query_terms
from engram.adapters.libsql.keyword_index import KeywordIndexCache
from engram.adapters.libsql.profile import ProfileCache
from engram.adapters.libsql.sql import (
    COLUMNS,
    LazyMemories,
    fts_owner_prefix,
    live,
    owner_sql,
    row_to_memory,
)
from engram.adapters.libsql.versions import read_scope
from engram.domain.errors import StorageError
from engram.domain.models import Memory, OwnerFilter, Removed
from engram.ports import RankingRows

__all__ = ["SearchRepository"]

log = logging.getLogger(__name__)

# The cache key of the row count bound (no indexed term starts with a space).
_ROWS = " rows"


def _rows_among(
    column: str, values: list[Any], who: OwnerFilter, now_ms: int, cutoff_ms: int
) -> tuple[str, list[Any]]:
    """The live rows within retention whose ``column`` (``id`` or ``seq``) is among
    ``values`` that ``who`` may see. Driven by that column: left to itself, the planner
    walked the owner index instead (5 ms instead of 0.15 ms for 40 ids among 10k rows of
    the key), hence the unindexed owner condition and ``+m.updated_at``."""
    owner_clause, params = owner_sql(who, indexed=False)
    live_sql, extra = live(now_ms)
    marks = ",".join("?" for _ in values)
    return (
        f"SELECT {COLUMNS} FROM memories m WHERE m.{column} IN ({marks}) AND {owner_clause}"
        f" AND {live_sql} AND +m.updated_at >= ?",
        [*values, *params, *extra, cutoff_ms],
    )


class SearchRepository:
    def __init__(
        self, db: Database, *, prune: bool = True, keywords: KeywordIndexCache | None = None
    ) -> None:
        self.db = db
        # Owners' keyword postings in memory (keyword_index.py): the fusion's keyword
        # scores without FTS5's walk over every owner's rows. None: FTS5 alone.
        self.keywords = keywords
        # Leave out query terms too common to change the ranking (see selective_terms).
        self.prune = prune
        # Document frequency per indexed term. FTS5 computes it by walking the term's
        # whole posting list, so it is cached; it drifts slowly, and a stale value only
        # moves the pruning threshold of one term for a few minutes.
        self._doc_freq: TTLCache[str, int] = TTLCache(maxsize=8192, ttl=300)
        self._doc_freq_lock = threading.Lock()
        self._profile = ProfileCache(db)

    def available(self) -> bool:
        return self.db.table_exists("memory_fts")

    def read_scope(self) -> AbstractContextManager[None]:
        return read_scope()

    def get_many(
        self, ids: list[str], who: OwnerFilter, now_ms: int, cutoff_ms: int
    ) -> list[Memory]:
        """Live memories among ``ids`` that ``who`` may see (order not kept)."""
        if not ids:
            return []
        return [
            row_to_memory(r) for r in self.db.query(*_rows_among("id", ids, who, now_ms, cutoff_ms))
        ]

    def get_many_with_context(
        self,
        ids: list[str],
        who: OwnerFilter,
        now_ms: int,
        cutoff_ms: int,
        recent_limit: int,
        profile_limit: int,
        seqs: Sequence[int] = (),
    ) -> RankingRows:
        """``get_many``, ``recent`` and ``profile`` read together: one round trip to a
        server instead of three. From a local file the recent rows, which only a short
        ranking looks at, are read when looked at (a statement saved, ~0.3-0.6 ms)."""
        owner_clause, params = owner_sql(who)
        live_sql, extra = live(now_ms)
        base = f"SELECT {COLUMNS} FROM memories m WHERE {owner_clause} AND {live_sql}"
        recent_sql = (
            base + " AND m.updated_at >= ? ORDER BY m.updated_at DESC, m.seq DESC LIMIT ?",
            [*params, *extra, cutoff_ms, recent_limit],
        )
        profile = self._profile.read(who, now_ms, cutoff_ms, profile_limit)
        statements = [] if profile.statement is None else [profile.statement]
        if self.db.is_remote:
            statements.append(recent_sql)
        among = [(column, v) for column, v in (("id", ids), ("seq", seqs)) if v]
        statements += [_rows_among(column, list(v), who, now_ms, cutoff_ms) for column, v in among]
        results = self.db.query_batch(statements) if statements else []
        memories = [
            row_to_memory(r) for found in results[len(results) - len(among) :] for r in found
        ]
        found = results.pop(0) if profile.statement is not None else []
        profiled = [row_to_memory(r) for r in profile.rows(found)]
        recent = LazyMemories(
            results[0] if self.db.is_remote else lambda: self.db.query(*recent_sql)
        )
        return RankingRows(memories=memories, recent=recent, profile=profiled)

    def selective_terms(self, terms: list[str]) -> list[str]:
        """``terms`` without those in half the indexed memories or more.

        FTS5's BM25 clamps such a term's IDF to 1e-6, so it cannot change the order of
        memories that match anything else; it only makes every row containing it a
        candidate to score. Kept when nothing else would remain.
        """
        if len(terms) < 2:
            return terms
        stems = {term: index_term(term) for term in terms}
        frequency, rows = self._document_frequencies(set(stems.values()))
        # max(seq) >= the row count, so the threshold errs towards keeping terms.
        half = rows / 2
        kept = [t for t in terms if frequency.get(stems[t], 0) < half]
        return kept or terms

    def _document_frequencies(self, stems: set[str]) -> tuple[dict[str, int], int]:
        """Document frequencies of ``stems`` and the row count bound (max(seq)), both
        cached like the frequencies (read together when either is missing: one round
        trip to a server)."""
        with self._doc_freq_lock:
            known = {s: self._doc_freq[s] for s in stems if s in self._doc_freq}
            rows = self._doc_freq.get(_ROWS)
        missing = sorted(stems - known.keys())
        # The row count rides along for free to a server; from a file it is a statement
        # of its own (~0.15 ms), read only when its cached value expired.
        counted = rows is None or self.db.is_remote
        if missing or rows is None:
            statements: list[tuple[str, list[Any]]] = []
            if counted:
                statements.append(("SELECT coalesce(max(seq), 0) AS n FROM memories", []))
            if missing:
                marks = ",".join("?" for _ in missing)
                statements.append(
                    (f"SELECT term, doc FROM memory_fts_vocab WHERE term IN ({marks})", missing)
                )
            results = self.db.query_batch(statements)
            fresh = int(results.pop(0)[0]["n"]) if counted else None
            rows = rows if fresh is None else fresh
            found = {r["term"]: int(r["doc"]) for r in results[0]} if missing else {}
            with self._doc_freq_lock:
                if fresh is not None:  # setting a cached count again would restart its TTL
                    self._doc_freq[_ROWS] = fresh
                for stem in missing:
                    known[stem] = self._doc_freq[stem] = found.get(stem, 0)
        assert rows is not None  # read above when it was not cached
        return known, rows

    def keyword_search(
        self, text: str, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int
    ) -> list[tuple[Memory, float]]:
        """Live memories matching ``text``, best first, with their BM25."""
        terms = query_terms(text)
        if not terms:
            return []
        selected = self.selective_terms(terms) if self.prune else terms
        if self.keywords is not None and len(who.owners) == 1 and who.session_id is None:
            found = self._indexed_search(self.keywords, selected, who, now_ms, cutoff_ms, limit)
            if found is not None:
                return found
        match = build_match(selected)
        if match is None:
            return []
        owner_clause, params = owner_sql(who)
        live_sql, extra = live(now_ms)
        rows = self.db.query(
            # CROSS JOIN pins the FTS index as the outer loop. With a plain JOIN and a bound
            # LIMIT the planner may walk the owner index instead and evaluate the full-text
            # query once per row: 5 s instead of 8 ms at 10k memories (bench/engine_bench.py).
            # The alias is not "rank", which is FTS5's own hidden column.
            # Column weights: key 0.5, content 1.0, context 0.5, owner token 0 (a filter).
            f"SELECT {COLUMNS}, bm25(memory_fts, 0.5, 1.0, 0.5, 0.0) AS bm25_score"
            " FROM memory_fts CROSS JOIN memories m ON m.seq = memory_fts.rowid"
            f" WHERE memory_fts MATCH ? AND {owner_clause} AND {live_sql} AND m.updated_at >= ?"
            " ORDER BY bm25_score LIMIT ?",
            [f"{fts_owner_prefix(who)}({match})", *params, *extra, cutoff_ms, limit],
        )
        return [(row_to_memory(r), float(r["bm25_score"])) for r in rows]

    def keyword_scores(self, text: str, who: OwnerFilter, limit: int) -> list[tuple[int, float]]:
        """(seq, BM25) of the best ``limit`` matches among ``who``'s rows, for fusion.

        From the owner's in-memory postings when they are built (one owner; the same
        scores and order as FTS5's), else the FTS query alone, restricted by the owner
        token: no join to the rows (which cost 1.5 ms at 10k memories). The caller keeps
        only seqs of the owner's own vector index, loaded with the owner condition,
        which makes isolation exact and applies expiry, retention and session; rows are
        then read with the owner condition in SQL (``get_many``).
        """
        terms = query_terms(text)
        if not terms:
            return []
        selected = self.selective_terms(terms) if self.prune else terms
        if self.keywords is not None and len(who.owners) == 1:
            found = self._indexed_scores(self.keywords, who.owners[0], selected, limit)
            if found is not None:
                return found
        rows = self.db.query(
            "SELECT rowid AS seq, bm25(memory_fts, 0.5, 1.0, 0.5, 0.0) AS bm25_score"
            " FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25_score LIMIT ?",
            [f"{fts_owner_prefix(who)}({build_match(selected)})", limit],
        )
        return [(int(r["seq"]), float(r["bm25_score"])) for r in rows]

    def _indexed_scores(
        self, keywords: KeywordIndexCache, owner: str, terms: list[str], limit: int
    ) -> list[tuple[int, float]] | None:
        """``keyword_scores`` from the owner's postings; None when FTS5 must answer (the
        postings are being built, a word is not one FTS5 token, or they failed: a defect
        in a cache must cost a query its speed, never its answer)."""
        try:
            stems = keywords.stems(terms)
            if stems is None:
                return None
            frequency, _ = self._document_frequencies(set(stems))
            return keywords.search(self.db, owner, stems, frequency, limit)
        except StorageError:
            raise  # the database itself: FTS5 could not answer either
        except Exception as exc:  # any defect of the postings falls back to FTS5
            log.warning("keyword postings failed, FTS5 answers: %s", type(exc).__name__)
            log.debug("keyword postings failure", exc_info=True)
            return None

    def _indexed_search(
        self,
        keywords: KeywordIndexCache,
        terms: list[str],
        who: OwnerFilter,
        now_ms: int,
        cutoff_ms: int,
        limit: int,
    ) -> list[tuple[Memory, float]] | None:
        """``keyword_search`` from the owner's postings, which know nothing of expiry and
        retention: more rows are scored than asked for, read by seq with those conditions
        (and the owner's), and FTS5 answers (None) when too many of them were filtered
        out to fill ``limit``."""
        ask = 2 * limit + 50
        scored = self._indexed_scores(keywords, who.owners[0], terms, ask)
        if scored is None:
            return None
        if not scored:
            return []
        seqs = [seq for seq, _ in scored]
        rows = self.db.query(*_rows_among("seq", seqs, who, now_ms, cutoff_ms))
        by_seq = {int(r["seq"]): r for r in rows}
        found = [(row_to_memory(by_seq[seq]), score) for seq, score in scored if seq in by_seq]
        if len(found) < limit and len(scored) == ask:
            return None
        return found[:limit]

    def forget(self, removed: Removed) -> None:
        """Removed rows leave this process's keyword postings now (other processes' at
        their next query of the key, by tombstone)."""
        if self.keywords is not None:
            for owner in removed.owners:
                self.keywords.refresh(self.db, owner)

    def mentions(self, who: OwnerFilter, terms: list[str]) -> set[str]:
        """Which of ``terms`` any of ``who``'s rows contains (one index probe each)."""
        found = set()
        for term in terms:
            match = build_match([term])
            if match is None:
                continue
            row = self.db.query_one(
                "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? LIMIT 1",
                [f"{fts_owner_prefix(who)}({match})"],
            )
            if row is not None:
                found.add(term)
        return found

    def profile(self, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int) -> list[Memory]:
        profile = self._profile.read(who, now_ms, cutoff_ms, limit)
        found = [] if profile.statement is None else self.db.query(*profile.statement)
        return [row_to_memory(r) for r in profile.rows(found)]

    def recent(self, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int) -> list[Memory]:
        """Live memories, most recently stated first."""
        owner_clause, params = owner_sql(who)
        live_sql, extra = live(now_ms)
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM memories m WHERE {owner_clause} AND {live_sql}"
            " AND m.updated_at >= ? ORDER BY m.updated_at DESC, m.seq DESC LIMIT ?",
            [*params, *extra, cutoff_ms, limit],
        )
        return [row_to_memory(r) for r in rows]
