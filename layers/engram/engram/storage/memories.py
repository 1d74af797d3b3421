"""Memory rows: writes and management reads (retrieval reads live in ``search``).

Tenant isolation is structural: every statement that reads or changes memories
carries the owner as a SQL condition (``api_key_id = ?``). Management calls that
may span owners pass ``owner=None`` explicitly, the only way to leave it out.

Every write bumps the owner's version (``owner_versions``) in the same
transaction and stamps the rows it wrote, and a deletion leaves a tombstone, so
the in-memory vector index of any process can catch up with only the changes.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from ..errors import ConflictError
from ..models import Memory, MemoryCreate, MemoryImport, MemoryQuery, MemoryUpdate
from ..models.common import from_millis, to_millis
from .context import date_words, refresh_contexts
from .database import Database, Row
from .rows import COLUMNS, OwnerFilter, dumps, live, row_to_memory

__all__ = ["MemoryRepository", "OwnerFilter", "UpsertOutcome", "bump_version"]


@dataclass(frozen=True)
class UpsertOutcome:
    memory: Memory
    created: bool
    content_changed: bool


def bump_version(db: Database, owner: str) -> int:
    """The owner's next version (call inside the write's transaction)."""
    return int(
        db.scalar(
            "INSERT INTO owner_versions (api_key_id, version) VALUES (?, 1)"
            " ON CONFLICT (api_key_id) DO UPDATE SET version = version + 1 RETURNING version",
            (owner,),
        )
    )


class MemoryRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- writes -------------------------------------------------------------------

    def upsert(self, item: MemoryCreate, key: str, now_ms: int) -> UpsertOutcome:
        """Insert, or update the row with the same ``(owner, key)`` in place.

        Metadata is merged shallowly (new top-level keys win), so restating a fact
        refreshes it without growing the table or losing annotations.
        """
        with self.db.transaction():
            existing = self.db.query_one(
                f"SELECT {COLUMNS} FROM memories m WHERE m.api_key_id = ? AND m.key = ?",
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
        version = bump_version(self.db, item.api_key_id)
        seq = self.db.scalar(
            "INSERT INTO memories (id, api_key_id, session_id, type, key, content, metadata,"
            " created_at, updated_at, expires_at, context, version)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?) RETURNING seq",
            (
                memory_id,
                item.api_key_id,
                item.session_id,
                item.type.value,
                key,
                item.content,
                dumps(item.metadata),
                created,
                updated,
                expires,
                date_words(item.metadata, created),
                version,
            ),
        )
        refresh_contexts(self.db, item.api_key_id, item.session_id, created, int(seq))
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
            " expires_at = ?, version = ?,"
            " needs_reindex = CASE WHEN ? THEN 1 ELSE needs_reindex END"
            " WHERE seq = ? AND api_key_id = ?",
            (
                item.content,
                item.type.value,
                dumps(metadata),
                updated,
                expires,
                bump_version(self.db, item.api_key_id),
                int(changed),
                row["seq"],
                item.api_key_id,
            ),
        )
        if changed:
            refresh_contexts(
                self.db, item.api_key_id, row["session_id"], row["created_at"], row["seq"]
            )
        memory = row_to_memory(
            {
                **row,
                "content": item.content,
                "type": item.type.value,
                "metadata": dumps(metadata),
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
            row = self._live_row(memory_id, owner, now_ms)
            if row is None:
                return None
            current = row_to_memory(row)
            fields = changes.model_fields_set
            if "key" in fields and changes.key != current.key:
                taken = self.db.query_one(
                    "SELECT id FROM memories WHERE api_key_id = ? AND key = ?",
                    (current.api_key_id, changes.key),
                )
                if taken is not None:
                    raise ConflictError("another memory of this owner has that key", field="key")
            sets: list[str] = ["updated_at = ?", "version = ?"]
            params: list[Any] = [now_ms, bump_version(self.db, current.api_key_id)]
            simple = {
                "content": changes.content,
                "key": changes.key,
                "type": changes.type.value if changes.type else None,
                "session_id": changes.session_id,
                "metadata": dumps(changes.metadata) if changes.metadata is not None else None,
                "expires_at": to_millis(changes.expires_at) if changes.expires_at else None,
            }
            for column, value in simple.items():
                if column in fields:
                    sets.append(f"{column} = ?")
                    params.append(value)
            content_changed = "content" in fields and changes.content != current.content
            moved = "session_id" in fields and changes.session_id != current.session_id
            if content_changed:
                sets.append("needs_reindex = 1")
            if "metadata" in fields and changes.metadata is not None:
                sets.append("context = ?")
                params.append(date_words(changes.metadata, row["created_at"]))
            self.db.execute(
                f"UPDATE memories SET {', '.join(sets)} WHERE id = ? AND api_key_id = ?",
                (*params, memory_id, current.api_key_id),
            )
            created, seq = row["created_at"], row["seq"]
            if content_changed or moved or "metadata" in fields:
                refresh_contexts(self.db, current.api_key_id, current.session_id, created, seq)
            if moved:
                refresh_contexts(self.db, current.api_key_id, changes.session_id, created, seq)
            updated = self.get(memory_id, current.api_key_id, now_ms=None)
            assert updated is not None
            return updated, content_changed

    def delete(self, memory_id: str, owner: str | None, now_ms: int = 0) -> bool:
        with self.db.transaction():
            where, params = "id = ?", [memory_id]
            if owner is not None:
                where += " AND api_key_id = ?"
                params.append(owner)
            row = self.db.query_one(
                f"SELECT seq, api_key_id, session_id, created_at FROM memories WHERE {where}",
                params,
            )
            if row is None:
                return False
            self.db.execute(
                "DELETE FROM memories WHERE seq = ? AND api_key_id = ?",
                (row["seq"], row["api_key_id"]),
            )
            self.db.execute(
                "INSERT INTO memory_tombstones (api_key_id, seq, version, deleted_at)"
                " VALUES (?, ?, ?, ?)",
                (row["api_key_id"], row["seq"], bump_version(self.db, row["api_key_id"]), now_ms),
            )
            refresh_contexts(
                self.db, row["api_key_id"], row["session_id"], row["created_at"], row["seq"]
            )
            return True

    # -- reads --------------------------------------------------------------------

    def _live_row(self, memory_id: str, owner: str | None, now_ms: int | None) -> Row | None:
        where = ["m.id = ?"]
        params: list[Any] = [memory_id]
        if owner is not None:
            where.append("m.api_key_id = ?")
            params.append(owner)
        if now_ms is not None:
            clause, extra = live(now_ms)
            where.append(clause)
            params += extra
        return self.db.query_one(
            f"SELECT {COLUMNS} FROM memories m WHERE {' AND '.join(where)}", params
        )

    def get(self, memory_id: str, owner: str | None, now_ms: int | None) -> Memory | None:
        """One memory by id; ``now_ms`` hides it once expired (None: show regardless)."""
        row = self._live_row(memory_id, owner, now_ms)
        return None if row is None else row_to_memory(row)

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
            f"SELECT {COLUMNS} FROM memories m WHERE {where}"
            " ORDER BY m.created_at DESC, m.seq DESC LIMIT ? OFFSET ?",
            [*params, query.limit, query.effective_offset],
        )
        return [row_to_memory(r) for r in rows], total, by_type

    @staticmethod
    def _list_filter(query: MemoryQuery, now_ms: int) -> tuple[str, list[Any]]:
        """Filters shared by the count, the per-type counts and the page (type aside)."""
        clause, params = live(now_ms)
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
        clause, params = live(now_ms)
        if owner is not None:
            clause += " AND m.api_key_id = ?"
            params.append(owner)
        if after is not None:
            clause += " AND (m.created_at, m.seq) > (?, ?)"
            params += list(after)
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM memories m WHERE {clause} ORDER BY m.created_at, m.seq LIMIT ?",
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
        clause, params = live(now_ms)
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
