"""Memory rows: the only module that writes SQL about memories.

Tenant isolation is structural: every statement that reads or changes
memories carries the owner as a SQL condition (``api_key_id = ?`` or
``api_key_id IN (...)``). Management calls that may span owners pass
``owner=None`` explicitly, which is the only way to leave the condition out.
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache

from ..errors import ConflictError
from ..models import Memory, MemoryCreate, MemoryImport, MemoryQuery, MemoryType, MemoryUpdate
from ..models.common import from_millis, to_millis
from .database import Database, Row
from .fts import index_term

__all__ = ["MemoryRepository", "OwnerFilter", "UpsertOutcome"]

_COLUMNS = (
    "m.seq, m.id, m.api_key_id, m.session_id, m.type, m.key, m.content, m.metadata,"
    " m.created_at, m.updated_at, m.expires_at"
)


@dataclass(frozen=True)
class OwnerFilter:
    """Whose memories a read may see: one or more owners, optionally one session."""

    owners: tuple[str, ...]
    session_id: str | None = None

    def sql(self) -> tuple[str, list[Any]]:
        marks = ",".join("?" for _ in self.owners)
        clause = f"m.api_key_id IN ({marks})"
        params: list[Any] = list(self.owners)
        if self.session_id is not None:
            clause += " AND m.session_id = ?"
            params.append(self.session_id)
        return clause, params

    def fts_prefix(self) -> str:
        """A MATCH prefix restricting FTS5 to these owners' rows (see ``owner_token``)."""
        tokens = " OR ".join(f'"o{owner.encode("utf-8").hex()}0"' for owner in self.owners)
        return f"owner_token : ({tokens}) AND "


@dataclass(frozen=True)
class UpsertOutcome:
    memory: Memory
    created: bool
    content_changed: bool


def _live(now_ms: int) -> tuple[str, list[Any]]:
    return "(m.expires_at IS NULL OR m.expires_at > ?)", [now_ms]


def row_to_memory(row: Row) -> Memory:
    return Memory(
        id=row["id"],
        api_key_id=row["api_key_id"],
        session_id=row["session_id"],
        type=MemoryType(row["type"]),
        key=row["key"],
        content=row["content"],
        metadata=json.loads(row["metadata"]),
        created_at=from_millis(row["created_at"]),
        updated_at=from_millis(row["updated_at"]),
        expires_at=None if row["expires_at"] is None else from_millis(row["expires_at"]),
    )


def _dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class MemoryRepository:
    def __init__(self, db: Database) -> None:
        self.db = db
        # Document frequency per indexed term. FTS5 computes it by walking the term's
        # whole posting list, so it is cached; it drifts slowly, and a stale value only
        # moves the pruning threshold of one term for a few minutes.
        self._doc_freq: TTLCache[str, int] = TTLCache(maxsize=8192, ttl=300)
        self._doc_freq_lock = threading.Lock()

    # -- writes -------------------------------------------------------------------

    def upsert(self, item: MemoryCreate, key: str, now_ms: int) -> UpsertOutcome:
        """Insert, or update the row with the same ``(owner, key)`` in place.

        Metadata is merged shallowly (new top-level keys win), so restating a fact
        refreshes it without growing the table or losing annotations.
        """
        with self.db.transaction():
            existing = self.db.query_one(
                f"SELECT {_COLUMNS} FROM memories m WHERE m.api_key_id = ? AND m.key = ?",
                (item.api_key_id, key),
            )
            if existing is None:
                return UpsertOutcome(self._insert(item, key, now_ms), True, True)
            return self._merge(existing, item, now_ms)

    def _insert(self, item: MemoryCreate, key: str, now_ms: int) -> Memory:
        memory_id = str(uuid.uuid4())
        created = updated = now_ms
        if isinstance(item, MemoryImport):
            memory_id = item.id or memory_id
            created = to_millis(item.created_at) if item.created_at else now_ms
            updated = to_millis(item.updated_at) if item.updated_at else created
            clash = self.db.query_one("SELECT api_key_id FROM memories WHERE id = ?", (memory_id,))
            if clash is not None:
                raise ConflictError(
                    "a memory with this id already exists under another key", field="id"
                )
        expires = to_millis(item.expires_at) if item.expires_at else None
        self.db.execute(
            "INSERT INTO memories (id, api_key_id, session_id, type, key, content, metadata,"
            " created_at, updated_at, expires_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                memory_id,
                item.api_key_id,
                item.session_id,
                item.type.value,
                key,
                item.content,
                _dumps(item.metadata),
                created,
                updated,
                expires,
            ),
        )
        return Memory(
            id=memory_id,
            api_key_id=item.api_key_id,
            session_id=item.session_id,
            type=item.type,
            key=key,
            content=item.content,
            metadata=item.metadata,
            created_at=from_millis(created),
            updated_at=from_millis(updated),
            expires_at=None if expires is None else from_millis(expires),
        )

    def _merge(self, row: Row, item: MemoryCreate, now_ms: int) -> UpsertOutcome:
        metadata = {**json.loads(row["metadata"]), **item.metadata}
        expires = row["expires_at"]
        if "expires_at" in item.model_fields_set:
            expires = to_millis(item.expires_at) if item.expires_at else None
        updated = now_ms
        if isinstance(item, MemoryImport) and item.updated_at is not None:
            updated = to_millis(item.updated_at)
        changed = row["content"] != item.content
        self.db.execute(
            "UPDATE memories SET content = ?, type = ?, metadata = ?, updated_at = ?,"
            " expires_at = ?, needs_reindex = CASE WHEN ? THEN 1 ELSE needs_reindex END"
            " WHERE seq = ? AND api_key_id = ?",
            (
                item.content,
                item.type.value,
                _dumps(metadata),
                updated,
                expires,
                int(changed),
                row["seq"],
                item.api_key_id,
            ),
        )
        memory = row_to_memory(
            {
                **row,
                "content": item.content,
                "type": item.type.value,
                "metadata": _dumps(metadata),
                "updated_at": updated,
                "expires_at": expires,
            }
        )
        return UpsertOutcome(memory, False, changed)

    def update(
        self, memory_id: str, owner: str | None, changes: MemoryUpdate, now_ms: int
    ) -> tuple[Memory, bool] | None:
        """Apply ``changes``; returns (memory, content_changed) or None when missing."""
        with self.db.transaction():
            current = self.get(memory_id, owner, now_ms)
            if current is None:
                return None
            fields = changes.model_fields_set
            sets: list[str] = ["updated_at = ?"]
            params: list[Any] = [now_ms]
            if "key" in fields and changes.key != current.key:
                taken = self.db.query_one(
                    "SELECT id FROM memories WHERE api_key_id = ? AND key = ?",
                    (current.api_key_id, changes.key),
                )
                if taken is not None:
                    raise ConflictError("another memory of this owner has that key", field="key")
            simple = {
                "content": changes.content,
                "key": changes.key,
                "type": changes.type.value if changes.type else None,
                "session_id": changes.session_id,
                "metadata": _dumps(changes.metadata) if changes.metadata is not None else None,
                "expires_at": to_millis(changes.expires_at) if changes.expires_at else None,
            }
            for column, value in simple.items():
                if column in fields:
                    sets.append(f"{column} = ?")
                    params.append(value)
            content_changed = "content" in fields and changes.content != current.content
            if content_changed:
                sets.append("needs_reindex = 1")
            self.db.execute(
                f"UPDATE memories SET {', '.join(sets)} WHERE id = ? AND api_key_id = ?",
                (*params, memory_id, current.api_key_id),
            )
            updated = self.get(memory_id, current.api_key_id, now_ms=None)
            assert updated is not None
            return updated, content_changed

    def delete(self, memory_id: str, owner: str | None) -> bool:
        if owner is None:
            return self.db.execute("DELETE FROM memories WHERE id = ?", (memory_id,)) > 0
        return (
            self.db.execute(
                "DELETE FROM memories WHERE id = ? AND api_key_id = ?", (memory_id, owner)
            )
            > 0
        )

    # -- reads --------------------------------------------------------------------

    def get(self, memory_id: str, owner: str | None, now_ms: int | None) -> Memory | None:
        """One memory by id; ``now_ms`` hides it once expired (None: show regardless)."""
        where = ["m.id = ?"]
        params: list[Any] = [memory_id]
        if owner is not None:
            where.append("m.api_key_id = ?")
            params.append(owner)
        if now_ms is not None:
            clause, extra = _live(now_ms)
            where.append(clause)
            params += extra
        row = self.db.query_one(
            f"SELECT {_COLUMNS} FROM memories m WHERE {' AND '.join(where)}", params
        )
        return None if row is None else row_to_memory(row)

    def get_many(
        self, ids: list[str], who: OwnerFilter, now_ms: int, cutoff_ms: int
    ) -> list[Memory]:
        """Live memories among ``ids`` that ``who`` may see (order not kept)."""
        if not ids:
            return []
        owner_sql, params = who.sql()
        live, extra = _live(now_ms)
        marks = ",".join("?" for _ in ids)
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories m WHERE m.id IN ({marks}) AND {owner_sql}"
            f" AND {live} AND m.updated_at >= ?",
            [*ids, *params, *extra, cutoff_ms],
        )
        return [row_to_memory(r) for r in rows]

    def list_page(
        self, query: MemoryQuery, now_ms: int
    ) -> tuple[list[Memory], int, dict[str, int]]:
        where, params = self._list_filter(query, now_ms)
        by_type = {
            row["type"]: int(row["n"])
            for row in self.db.query(
                f"SELECT m.type AS type, count(*) AS n FROM memories m WHERE {where}"
                " GROUP BY m.type",
                params,
            )
        }
        if query.type is not None:
            where += " AND m.type = ?"
            params = [*params, query.type.value]
        total = int(self.db.scalar(f"SELECT count(*) FROM memories m WHERE {where}", params))
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories m WHERE {where}"
            " ORDER BY m.created_at DESC, m.seq DESC LIMIT ? OFFSET ?",
            [*params, query.limit, query.effective_offset],
        )
        return [row_to_memory(r) for r in rows], total, by_type

    @staticmethod
    def _list_filter(query: MemoryQuery, now_ms: int) -> tuple[str, list[Any]]:
        """Filters shared by the count, the per-type counts and the page (type aside)."""
        clause, params = _live(now_ms)
        where = [clause]
        if query.api_key_id is not None:
            where.append("m.api_key_id = ?")
            params.append(query.api_key_id)
        if query.session_id is not None:
            where.append("m.session_id = ?")
            params.append(query.session_id)
        if query.q:
            # A substring search, as a search box is expected to behave; LIKE wildcards
            # in the user's text are escaped so they match themselves.
            pattern = "%" + query.q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            pattern += "%"
            where.append("(m.content LIKE ? ESCAPE '\\' OR m.key LIKE ? ESCAPE '\\')")
            params += [pattern, pattern]
        return " AND ".join(where), params

    def export_batch(
        self, owner: str | None, after: tuple[int, int] | None, now_ms: int, limit: int
    ) -> list[tuple[Memory, tuple[int, int]]]:
        """Live memories in creation order, after the ``(created_at, seq)`` cursor."""
        clause, params = _live(now_ms)
        if owner is not None:
            clause += " AND m.api_key_id = ?"
            params.append(owner)
        if after is not None:
            clause += " AND (m.created_at, m.seq) > (?, ?)"
            params += list(after)
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories m WHERE {clause}"
            " ORDER BY m.created_at, m.seq LIMIT ?",
            [*params, limit],
        )
        return [(row_to_memory(r), (r["created_at"], r["seq"])) for r in rows]

    def vector_counts(self) -> tuple[int, int]:
        """(memories, memories waiting for a vector)."""
        row = self.db.query_one(
            "SELECT count(*) AS n, coalesce(sum(needs_reindex), 0) AS pending FROM memories"
        )
        assert row is not None
        return int(row["n"]), int(row["pending"])

    def totals(self, owner: str | None, now_ms: int) -> tuple[int, int]:
        """(count, estimated tokens) of live memories."""
        clause, params = _live(now_ms)
        if owner is not None:
            clause += " AND m.api_key_id = ?"
            params.append(owner)
        row = self.db.query_one(
            "SELECT count(*) AS n, coalesce(sum((length(m.content) + 3) / 4), 0) AS tokens"
            f" FROM memories m WHERE {clause}",
            params,
        )
        assert row is not None
        return int(row["n"]), int(row["tokens"])

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
        live, extra = _live(now_ms)
        rows = self.db.query(
            # CROSS JOIN pins the FTS index as the outer loop. With a plain JOIN and a bound
            # LIMIT the planner may walk the owner index instead and evaluate the full-text
            # query once per row: 5 s instead of 8 ms at 10k memories (bench/engine_bench.py).
            # The alias is not "rank", which is FTS5's own hidden column.
            # Column weights: key 0.5, content 1.0, owner token 0 (a filter, not a signal).
            f"SELECT {_COLUMNS}, bm25(memory_fts, 0.5, 1.0, 0.0) AS bm25_score"
            " FROM memory_fts CROSS JOIN memories m ON m.seq = memory_fts.rowid"
            f" WHERE memory_fts MATCH ? AND {owner_sql} AND {live} AND m.updated_at >= ?"
            " ORDER BY bm25_score LIMIT ?",
            [f"{who.fts_prefix()}({match})", *params, *extra, cutoff_ms, limit],
        )
        return [(row_to_memory(r), float(r["bm25_score"])) for r in rows]

    def recent(self, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int) -> list[Memory]:
        """Live memories, most recently stated first."""
        owner_sql, params = who.sql()
        live, extra = _live(now_ms)
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM memories m WHERE {owner_sql} AND {live}"
            " AND m.updated_at >= ? ORDER BY m.updated_at DESC, m.seq DESC LIMIT ?",
            [*params, *extra, cutoff_ms, limit],
        )
        return [row_to_memory(r) for r in rows]

    # -- processed queue jobs ---------------------------------------------------------

    def job_seen(self, job_id: str) -> bool:
        return (
            self.db.query_one("SELECT 1 FROM processed_jobs WHERE job_id = ?", (job_id,))
            is not None
        )

    def mark_job(self, job_id: str, kind: str, now_ms: int) -> None:
        self.db.execute(
            "INSERT INTO processed_jobs (job_id, kind, processed_at) VALUES (?, ?, ?)",
            (job_id, kind, now_ms),
        )

    # -- retrieval counters ---------------------------------------------------------

    def record_retrieval(self, owner: str, hit: bool, now_ms: int) -> None:
        self.db.execute(
            "INSERT INTO retrieval_stats (api_key_id, retrievals, hits, updated_at)"
            " VALUES (?, 1, ?, ?) ON CONFLICT (api_key_id) DO UPDATE SET"
            " retrievals = retrievals + 1, hits = hits + excluded.hits,"
            " updated_at = excluded.updated_at",
            (owner, int(hit), now_ms),
        )

    def retrieval_counts(self, owner: str | None) -> tuple[int, int]:
        if owner is None:
            row = self.db.query_one(
                "SELECT coalesce(sum(retrievals), 0) AS r, coalesce(sum(hits), 0) AS h"
                " FROM retrieval_stats"
            )
        else:
            row = self.db.query_one(
                "SELECT retrievals AS r, hits AS h FROM retrieval_stats WHERE api_key_id = ?",
                (owner,),
            )
        return (0, 0) if row is None else (int(row["r"]), int(row["h"]))
