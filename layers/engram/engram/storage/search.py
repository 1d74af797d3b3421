"""Reads for retrieval: keyword search, recency, and the rows of the vector index.

Every query carries the owner condition (``OwnerFilter`` or ``api_key_id = ?``).
"""

from __future__ import annotations

import threading

from cachetools import TTLCache

from ..models import Memory
from .database import Database, Row
from .fts import index_term
from .memories import bump_version
from .rows import COLUMNS, OwnerFilter, live, row_to_memory

__all__ = ["SearchRepository", "VectorMeta"]


class VectorMeta:
    """The embedding the stored vectors belong to (the single row of ``vector_meta``)."""

    def __init__(self, row: Row | None) -> None:
        row = row or {}
        self.dim: int | None = row.get("active_dim")
        self.signature: str | None = row.get("embedding_signature")
        self.last_reset_at: int | None = row.get("last_reset_at")


class SearchRepository:
    def __init__(self, db: Database) -> None:
        self.db = db
        # Document frequency per indexed term. FTS5 computes it by walking the term's
        # whole posting list, so it is cached; it drifts slowly, and a stale value only
        # moves the pruning threshold of one term for a few minutes.
        self._doc_freq: TTLCache[str, int] = TTLCache(maxsize=8192, ttl=300)
        self._doc_freq_lock = threading.Lock()

    def get_many(
        self, ids: list[str], who: OwnerFilter, now_ms: int, cutoff_ms: int
    ) -> list[Memory]:
        """Live memories among ``ids`` that ``who`` may see (order not kept)."""
        if not ids:
            return []
        # Drive the lookup by id: left to itself, the planner walked the owner index
        # instead (5 ms instead of 0.15 ms for 40 ids among 10k rows of the key).
        owner_sql, params = who.sql(indexed=False)
        live_sql, extra = live(now_ms)
        marks = ",".join("?" for _ in ids)
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM memories m WHERE m.id IN ({marks}) AND {owner_sql}"
            f" AND {live_sql} AND +m.updated_at >= ?",
            [*ids, *params, *extra, cutoff_ms],
        )
        return [row_to_memory(r) for r in rows]

    def selective_terms(self, terms: list[str]) -> list[str]:
        """``terms`` without those in half the indexed memories or more.

        FTS5's BM25 clamps such a term's IDF to 1e-6, so it cannot change the order of
        memories that match anything else; it only makes every row containing it a
        candidate to score. Kept when nothing else would remain.
        """
        if len(terms) < 2:
            return terms
        stems = {term: index_term(term) for term in terms}
        frequency = self._document_frequencies(set(stems.values()))
        # max(seq) >= the row count, so the threshold errs towards keeping terms.
        half = (self.db.scalar("SELECT max(seq) FROM memories") or 0) / 2
        kept = [t for t in terms if frequency.get(stems[t], 0) < half]
        return kept or terms

    def _document_frequencies(self, stems: set[str]) -> dict[str, int]:
        with self._doc_freq_lock:
            known = {s: self._doc_freq[s] for s in stems if s in self._doc_freq}
        missing = sorted(stems - known.keys())
        if missing:
            marks = ",".join("?" for _ in missing)
            found = {
                row["term"]: int(row["doc"])
                for row in self.db.query(
                    f"SELECT term, doc FROM memory_fts_vocab WHERE term IN ({marks})", missing
                )
            }
            with self._doc_freq_lock:
                for stem in missing:
                    known[stem] = self._doc_freq[stem] = found.get(stem, 0)
        return known

    def keyword_search(
        self, match: str, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int
    ) -> list[tuple[Memory, float]]:
        """Live memories matching the FTS5 expression, best first, with their BM25."""
        owner_sql, params = who.sql()
        live_sql, extra = live(now_ms)
        rows = self.db.query(
            # CROSS JOIN pins the FTS index as the outer loop. With a plain JOIN and a bound
            # LIMIT the planner may walk the owner index instead and evaluate the full-text
            # query once per row: 5 s instead of 8 ms at 10k memories (bench/engine_bench.py).
            # The alias is not "rank", which is FTS5's own hidden column.
            # Column weights: key 0.5, content 1.0, context 0.5, owner token 0 (a filter).
            f"SELECT {COLUMNS}, bm25(memory_fts, 0.5, 1.0, 0.5, 0.0) AS bm25_score"
            " FROM memory_fts CROSS JOIN memories m ON m.seq = memory_fts.rowid"
            f" WHERE memory_fts MATCH ? AND {owner_sql} AND {live_sql} AND m.updated_at >= ?"
            " ORDER BY bm25_score LIMIT ?",
            [f"{who.fts_prefix()}({match})", *params, *extra, cutoff_ms, limit],
        )
        return [(row_to_memory(r), float(r["bm25_score"])) for r in rows]

    def keyword_scores(self, match: str, who: OwnerFilter, limit: int) -> list[tuple[int, float]]:
        """(seq, BM25) of the best ``limit`` matches among ``who``'s rows, for fusion.

        The FTS query alone, restricted by the owner token: no join to the rows (which
        cost 1.5 ms at 10k memories). The caller keeps only seqs of the owner's own
        vector index, loaded with ``api_key_id = ?``, which makes isolation exact and
        applies expiry, retention and session; rows are then read with the owner
        condition in SQL (``get_many``).
        """
        rows = self.db.query(
            "SELECT rowid AS seq, bm25(memory_fts, 0.5, 1.0, 0.5, 0.0) AS bm25_score"
            " FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25_score LIMIT ?",
            [f"{who.fts_prefix()}({match})", limit],
        )
        return [(int(r["seq"]), float(r["bm25_score"])) for r in rows]

    def recent(self, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int) -> list[Memory]:
        """Live memories, most recently stated first."""
        owner_sql, params = who.sql()
        live_sql, extra = live(now_ms)
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM memories m WHERE {owner_sql} AND {live_sql}"
            " AND m.updated_at >= ? ORDER BY m.updated_at DESC, m.seq DESC LIMIT ?",
            [*params, *extra, cutoff_ms, limit],
        )
        return [row_to_memory(r) for r in rows]

    # -- the vector index's rows ------------------------------------------------------

    def owner_version(self, owner: str) -> int:
        value = self.db.scalar("SELECT version FROM owner_versions WHERE api_key_id = ?", (owner,))
        return int(value or 0)

    def index_rows(self, owner: str, since: int) -> list[Row]:
        """The owner's rows written after version ``since`` (all rows for 0)."""
        return self.db.query(
            "SELECT seq, id, session_id, created_at, updated_at, expires_at, embedding,"
            " json_extract(metadata, '$.speaker') AS speaker, version"
            " FROM memories WHERE api_key_id = ? AND version > ?",
            (owner, since),
        )

    def tombstones(self, owner: str, since: int) -> list[int]:
        rows = self.db.query(
            "SELECT seq FROM memory_tombstones WHERE api_key_id = ? AND version > ?",
            (owner, since),
        )
        return [int(r["seq"]) for r in rows]

    def pending_vectors(self, owner: str | None, limit: int) -> list[Row]:
        """Memories waiting for a vector of the current signature (one owner, or all)."""
        where, params = "needs_reindex = 1", []
        if owner is not None:
            where += " AND api_key_id = ?"
            params.append(owner)
        return self.db.query(
            f"SELECT seq, api_key_id, content FROM memories WHERE {where} ORDER BY seq LIMIT ?",
            [*params, limit],
        )

    def pending_count(self, owner: str | None = None) -> int:
        if owner is None:
            return int(self.db.scalar("SELECT count(*) FROM memories WHERE needs_reindex = 1"))
        return int(
            self.db.scalar(
                "SELECT count(*) FROM memories WHERE needs_reindex = 1 AND api_key_id = ?",
                (owner,),
            )
        )

    def store_vectors(self, items: list[tuple[int, str, str, bytes]], int8: bool) -> list[int]:
        """Store (seq, owner, content embedded, float32 bytes); returns the seqs written.

        A row whose content changed since it was read keeps ``needs_reindex``: the
        vector of the old text is not stored over it.
        """
        encode = "vector8(?)" if int8 else "vector32(?)"
        written: list[int] = []
        with self.db.transaction():
            versions: dict[str, int] = {}
            for seq, owner, content, blob in items:
                if owner not in versions:
                    versions[owner] = bump_version(self.db, owner)
                if self.db.execute(
                    f"UPDATE memories SET embedding = {encode}, needs_reindex = 0, version = ?"
                    " WHERE seq = ? AND api_key_id = ? AND content = ?",
                    (blob, versions[owner], seq, owner, content),
                ):
                    written.append(seq)
        return written

    def by_seq(self, seqs: list[int]) -> list[tuple[int, Memory, bytes | None]]:
        """(seq, memory, stored vector) for each seq (maintenance: any owner)."""
        if not seqs:
            return []
        marks = ",".join("?" for _ in seqs)
        rows = self.db.query(
            f"SELECT {COLUMNS}, m.embedding FROM memories m WHERE m.seq IN ({marks})", seqs
        )
        return [(int(r["seq"]), row_to_memory(r), r["embedding"]) for r in rows]

    def embedded_after(self, seq: int, limit: int) -> list[int]:
        """Seqs of memories with a vector, after ``seq`` (a backfill's cursor)."""
        rows = self.db.query(
            "SELECT seq FROM memories WHERE seq > ? AND embedding IS NOT NULL"
            " AND needs_reindex = 0 ORDER BY seq LIMIT ?",
            (seq, limit),
        )
        return [int(r["seq"]) for r in rows]

    def embedded_count(self) -> int:
        return int(self.db.scalar("SELECT count(*) FROM memories WHERE embedding IS NOT NULL"))

    def owners(self) -> list[str]:
        """Every API key id that has written memories (maintenance views only)."""
        return [
            str(r["api_key_id"]) for r in self.db.query("SELECT api_key_id FROM owner_versions")
        ]

    def vector_meta(self) -> VectorMeta:
        return VectorMeta(
            self.db.query_one(
                "SELECT active_dim, embedding_signature, last_reset_at FROM vector_meta"
                " WHERE id = 1"
            )
        )

    def reset_vectors(self, signature: str, dim: int, now_ms: int) -> int:
        """A new embedding: every vector is stale. Returns how many rows need one."""
        with self.db.transaction():
            self.db.execute(
                "UPDATE vector_meta SET active_dim = ?, embedding_signature = ?,"
                " last_reset_at = ? WHERE id = 1",
                (dim, signature, now_ms),
            )
            pending = self.db.execute("UPDATE memories SET embedding = NULL, needs_reindex = 1")
            # Every process's index must reload: bump every owner.
            self.db.execute("UPDATE owner_versions SET version = version + 1")
            self.db.execute(
                "UPDATE memories SET version = (SELECT version FROM owner_versions o"
                " WHERE o.api_key_id = memories.api_key_id)"
            )
            return pending

    def mark_all_pending(self) -> int:
        return self.db.execute("UPDATE memories SET needs_reindex = 1")
