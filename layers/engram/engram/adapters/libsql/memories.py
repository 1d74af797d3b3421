"""The ``memories`` table: writes and management reads (the ``MemoryStore`` port;
retrieval reads live in ``search``).

Tenant isolation is structural: every statement that reads or changes memories
carries the owner as a SQL condition (``owner_sql``). Management calls that may
span owners pass ``owner=None`` explicitly, the only way to leave it out.

Every write bumps the owner's version (``versions``) in the same transaction and
stamps the rows it wrote, and a deletion leaves a tombstone, so the in-memory
vector index of any process can catch up with only the changes.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from engram.adapters.libsql.batch_insert import insert_new
from engram.adapters.libsql.context import date_words, is_turn, refresh_contexts
from engram.adapters.libsql.database import Database, Row
from engram.adapters.libsql.history import remove_rows, retire_row
from engram.adapters.libsql.sql import COLUMNS, dumps, live, owner_sql, row_to_memory
from engram.adapters.libsql.versions import CURRENT_VERSION, bump_version, bumped
from engram.domain.errors import ConflictError, InvalidInputError
from engram.domain.models import (
    Memory,
    MemoryCreate,
    MemoryImport,
    MemoryQuery,
    MemoryUpdate,
    Removed,
    UpsertOutcome,
)
from engram.domain.models.common import from_millis, to_millis
from engram.domain.tokens import CHARS_PER_TOKEN

__all__ = ["MemoryRepository"]


class MemoryRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- writes -------------------------------------------------------------------

    def upsert_many(
        self, items: Sequence[tuple[MemoryCreate, str]], now_ms: int
    ) -> list[UpsertOutcome]:
        """``upsert`` for a batch (item, key), all or nothing: the new keys written
        together (``batch_insert``), the rest one by one after them."""
        with self.db.transaction():
            done = insert_new(self.db, items, now_ms)
            return [
                done[i] if i in done else self._upsert_one(i, item, key, now_ms)
                for i, (item, key) in enumerate(items)
            ]

    def _upsert_one(self, index: int, item: MemoryCreate, key: str, now_ms: int) -> UpsertOutcome:
        try:
            return self.upsert(item, key, now_ms)
        except InvalidInputError as exc:  # name the item, as the batch's own refusals do
            field = f"[{index}].{exc.field}" if exc.field else f"[{index}]"
            raise type(exc)(f"item {index}: {exc.message}", field=field) from exc

    def upsert(
        self, item: MemoryCreate, key: str, now_ms: int, *, supersede: bool = False
    ) -> UpsertOutcome:
        """Insert, or update the row with the same ``(owner, key)`` in place.

        Metadata is merged shallowly (new top-level keys win), so restating a fact
        refreshes it without growing the table or losing annotations. With ``supersede``
        a different content is a new fact instead: the old row is retired into the
        history (naming the new one) and the new one inserted.
        """
        with self.db.transaction():
            owner_clause, params = owner_sql(item.api_key_id)
            existing = self.db.query_one(
                f"SELECT {COLUMNS} FROM memories m WHERE {owner_clause} AND m.key = ?",
                [*params, key],
            )
            if existing is None:
                return UpsertOutcome(self._insert(item, key, now_ms), True, True)
            if existing["expires_at"] is not None and existing["expires_at"] <= now_ms:
                # An expired memory is gone for every reader: the key starts afresh rather
                # than reviving it with its old expiry (which would hide the new content).
                remove_rows(self.db, item.api_key_id, "seq = ?", [existing["seq"]], now_ms)
                return UpsertOutcome(self._insert(item, key, now_ms), True, True)
            if supersede and existing["content"] != item.content:
                new_id = str(uuid.uuid4())
                retired = retire_row(
                    self.db, existing["id"], item.api_key_id, now_ms, superseded_by=new_id
                )
                memory = self._insert(item, key, now_ms, memory_id=new_id)
                return UpsertOutcome(memory, True, True, retired)
            return self._merge(existing, item, now_ms)

    def _insert(
        self, item: MemoryCreate, key: str, now_ms: int, memory_id: str | None = None
    ) -> Memory:
        memory_id = memory_id or str(uuid.uuid4())
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
        # The version bump and the row in one round trip to a server.
        (inserted,) = bumped(
            self.db,
            item.api_key_id,
            "INSERT INTO memories (id, api_key_id, session_id, type, key, content, metadata,"
            " created_at, updated_at, expires_at, context, version)"
            f" VALUES (?,?,?,?,?,?,?,?,?,?,?,{CURRENT_VERSION}) RETURNING seq",
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
                item.api_key_id,
            ),
        )
        seq = inserted["seq"]
        refresh_contexts(
            self.db, item.api_key_id, item.session_id, created, int(seq), is_turn(item.metadata)
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
            " expires_at = ?, version = ?,"
            " needs_reindex = CASE WHEN ? THEN 1 ELSE needs_reindex END"
            f" WHERE seq = ? AND {owner_sql(item.api_key_id, alias='')[0]}",
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
        was_turn = is_turn(json.loads(row["metadata"]))
        if changed or was_turn != is_turn(metadata):
            turns = was_turn if was_turn == is_turn(metadata) else None  # None: both streams
            refresh_contexts(
                self.db, item.api_key_id, row["session_id"], row["created_at"], row["seq"], turns
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
                owner_clause, owner_params = owner_sql(current.api_key_id, alias="")
                taken = self.db.query_one(
                    f"SELECT id FROM memories WHERE {owner_clause} AND key = ?",
                    [*owner_params, changes.key],
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
                f"UPDATE memories SET {', '.join(sets)} WHERE id = ?"
                f" AND {owner_sql(current.api_key_id, alias='')[0]}",
                (*params, memory_id, current.api_key_id),
            )
            created, seq = row["created_at"], row["seq"]
            # New metadata may move the row to the other stream (turns, the rest): both.
            turns = None if "metadata" in fields else is_turn(current.metadata)
            if content_changed or moved or "metadata" in fields:
                refresh_contexts(
                    self.db, current.api_key_id, current.session_id, created, seq, turns
                )
            if moved:
                refresh_contexts(
                    self.db, current.api_key_id, changes.session_id, created, seq, turns
                )
            updated = self.get(memory_id, current.api_key_id, now_ms=None)
            assert updated is not None
            return updated, content_changed

    def delete(self, memory_id: str, owner: str | None, now_ms: int) -> Removed:
        with self.db.transaction():
            owner_clause, params = owner_sql(owner, alias="")
            row = self.db.query_one(
                f"SELECT api_key_id FROM memories WHERE id = ? AND {owner_clause}",
                [memory_id, *params],
            )
            if row is None:
                return Removed()
            return remove_rows(self.db, row["api_key_id"], "id = ?", [memory_id], now_ms)

    # -- reads --------------------------------------------------------------------

    def _live_row(self, memory_id: str, owner: str | None, now_ms: int | None) -> Row | None:
        owner_clause, owner_params = owner_sql(owner)
        where = ["m.id = ?", owner_clause]
        params: list[Any] = [memory_id, *owner_params]
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
        owner_clause, owner_params = owner_sql(query.api_key_id)
        where = [clause, owner_clause]
        params += owner_params
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
        owner_clause, owner_params = owner_sql(owner)
        clause += f" AND {owner_clause}"
        params += owner_params
        if after is not None:
            clause += " AND (m.created_at, m.seq) > (?, ?)"
            params += list(after)
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM memories m WHERE {clause} ORDER BY m.created_at, m.seq LIMIT ?",
            [*params, limit],
        )
        return [(row_to_memory(r), (r["created_at"], r["seq"])) for r in rows]

    def totals(self, owner: str | None, now_ms: int) -> tuple[int, int]:
        """(count, estimated tokens) of live memories."""
        clause, params = live(now_ms)
        owner_clause, owner_params = owner_sql(owner)
        # The token estimate of engram.domain.tokens, in SQL: ceil(length / CHARS_PER_TOKEN).
        tokens = f"(length(m.content) + {CHARS_PER_TOKEN - 1}) / {CHARS_PER_TOKEN}"
        row = self.db.query_one(
            f"SELECT count(*) AS n, coalesce(sum({tokens}), 0) AS tokens"
            f" FROM memories m WHERE {clause} AND {owner_clause}",
            [*params, *owner_params],
        )
        assert row is not None
        return int(row["n"]), int(row["tokens"])
