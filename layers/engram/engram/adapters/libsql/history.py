"""Retired facts and forgetting (the ``FactHistory`` port).

A fact retired by a later statement moves from ``memories`` to ``memory_history``
in the transaction that replaces it: every reader of ``memories`` (retrieval,
vectors, lists, export) stops seeing it without a condition of its own, and its
vector leaves the indexes through the same tombstone as a deletion.

Forgetting deletes a key's memories matching a filter, with their retired
versions, in one transaction, then leaves none of their text in the file: the
keyword index is optimised (FTS5 otherwise keeps deleted tokens under delete
markers until its segments merge), ``PRAGMA secure_delete`` (set by the
connection) zeroes freed pages, and the WAL is checkpointed.
"""

from __future__ import annotations

import json
from typing import Any

from engram.adapters.libsql.context import is_turn, refresh_contexts, refresh_sessions
from engram.adapters.libsql.database import Database, Row
from engram.adapters.libsql.fts import purge_keyword_index
from engram.adapters.libsql.sql import COLUMNS, owner_sql, row_to_memory
from engram.adapters.libsql.versions import bump_version
from engram.domain.models import DAY_MS, ForgetOutcome, Memory, MemoryForget, MemoryVersion, Removed
from engram.domain.models.common import from_millis

__all__ = ["HistoryRepository", "remove_rows", "retire_row"]

_HISTORY_COLUMNS = (
    "id, api_key_id, session_id, type, key, content, metadata, created_at, updated_at,"
    " valid_to, superseded_by, reason"
)


def remove_rows(db: Database, owner: str, where: str, params: list[Any], now_ms: int) -> Removed:
    """Delete the owner's rows matching ``where`` (inside the caller's transaction): one
    tombstone each for the vector indexes, and the contexts of their sessions rebuilt so
    no neighbour keeps their words."""
    owner_clause, owner_params = owner_sql(owner, alias="")
    condition = f"{owner_clause} AND ({where})"
    args = [*owner_params, *params]
    rows = db.query(
        f"SELECT seq, id, content, session_id, created_at, metadata FROM memories"
        f" WHERE {condition}",
        args,
    )
    if not rows:
        return Removed()
    version = bump_version(db, owner)
    db.executemany(
        "INSERT INTO memory_tombstones (api_key_id, seq, version, deleted_at) VALUES (?,?,?,?)",
        [(owner, r["seq"], version, now_ms) for r in rows],
    )
    db.execute(f"DELETE FROM memories WHERE {condition}", args)
    sessions = {r["session_id"] for r in rows if r["session_id"] is not None}
    if len(rows) == 1 and sessions:
        only = rows[0]
        turns = is_turn(json.loads(only["metadata"]))
        refresh_contexts(db, owner, only["session_id"], only["created_at"], only["seq"], turns)
    else:
        refresh_sessions(db, [(owner, session) for session in sorted(sessions)])
    return Removed(tuple(r["id"] for r in rows), tuple(r["content"] for r in rows), (owner,))


def retire_row(
    db: Database, memory_id: str, owner: str, now_ms: int, superseded_by: str | None
) -> Removed:
    """Move one live memory to the history (inside the caller's transaction): superseded
    when ``superseded_by`` names its successor, else withdrawn."""
    owner_clause, owner_params = owner_sql(owner, alias="")
    copied = db.execute(
        f"INSERT INTO memory_history ({_HISTORY_COLUMNS})"
        " SELECT id, api_key_id, session_id, type, key, content, metadata, created_at,"
        f" updated_at, ?, ?, ? FROM memories WHERE id = ? AND {owner_clause}",
        (
            now_ms,
            superseded_by,
            "superseded" if superseded_by else "withdrawn",
            memory_id,
            *owner_params,
        ),
    )
    if not copied:
        return Removed()
    return remove_rows(db, owner, "id = ?", [memory_id], now_ms)


class HistoryRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- retiring ---------------------------------------------------------------------

    def retire(
        self, memory_id: str, owner: str, now_ms: int, *, superseded_by: str | None = None
    ) -> Removed:
        with self.db.transaction():
            return retire_row(self.db, memory_id, owner, now_ms, superseded_by)

    def live_about(
        self, owner: str, subject: str, categories: tuple[str, ...], source: str
    ) -> list[Memory]:
        """Live facts of ``owner`` whose extracted object or subject is ``subject`` (every
        one of these categories when ``subject`` is ""), newest first. What the user says
        reaches every fact; what the assistant says reaches only the assistant's own
        (facts written through the API have no ``source`` and count as the user's)."""
        marks = ",".join("?" for _ in categories)
        where, params = owner_sql(owner)
        sql = (
            f"SELECT {COLUMNS} FROM memories m WHERE {where}"
            f" AND json_extract(m.metadata, '$.category') IN ({marks})"
        )
        args: list[Any] = [*params, *categories]
        if subject:
            sql += (
                " AND (json_extract(m.metadata, '$.object') = ?"
                " OR json_extract(m.metadata, '$.subject') = ?)"
            )
            args += [subject, subject]
        if source != "user":
            sql += " AND json_extract(m.metadata, '$.source') = ?"
            args.append(source)
        rows = self.db.query(sql + " ORDER BY m.updated_at DESC, m.seq DESC LIMIT 200", args)
        return [row_to_memory(r) for r in rows]

    # -- reading ------------------------------------------------------------------------

    def versions(self, memory_id: str, owner: str | None) -> list[MemoryVersion] | None:
        """Every version of the fact ``memory_id`` belongs to, newest first; None when the
        id is neither live nor retired (for this owner)."""
        owner_clause, owner_params = owner_sql(owner, alias="")
        live = self.db.query_one(
            f"SELECT {COLUMNS} FROM memories m WHERE m.id = ? AND {owner_sql(owner)[0]}",
            [memory_id, *owner_params],
        )
        retired = self.db.query_one(
            f"SELECT {_HISTORY_COLUMNS} FROM memory_history WHERE id = ? AND {owner_clause}",
            [memory_id, *owner_params],
        )
        if live is None and retired is None:
            return None
        found = live or retired
        assert found is not None
        true_owner = str(found["api_key_id"])
        # Walk forward to the newest version, then back through every predecessor.
        head = memory_id
        seen = {head}
        while retired is not None and retired["superseded_by"]:
            head = str(retired["superseded_by"])
            if head in seen:
                break
            seen.add(head)
            retired = self.db.query_one(
                f"SELECT {_HISTORY_COLUMNS} FROM memory_history"
                f" WHERE id = ? AND {owner_sql(true_owner, alias='')[0]}",
                [head, true_owner],
            )
        newest = self.db.query_one(
            f"SELECT {COLUMNS} FROM memories m WHERE m.id = ? AND {owner_sql(true_owner)[0]}",
            [head, true_owner],
        )
        where, params = owner_sql(true_owner, alias="h")
        older = self.db.query(
            "WITH RECURSIVE chain(id, depth) AS ("
            " SELECT ?, 0"
            " UNION SELECT h.id, c.depth + 1 FROM memory_history h JOIN chain c"
            f" ON h.superseded_by = c.id WHERE {where} AND c.depth < 1000)"
            f" SELECT {', '.join('h.' + c.strip() for c in _HISTORY_COLUMNS.split(','))}"
            " FROM memory_history h JOIN chain c ON h.id = c.id"
            " ORDER BY h.valid_to DESC, h.created_at DESC",
            [head, *params],
        )
        result = [] if newest is None else [_live_version(newest)]
        return result + [_retired_version(r) for r in older]

    # -- forgetting ---------------------------------------------------------------------

    def forget(self, request: MemoryForget, now_ms: int) -> tuple[ForgetOutcome, Removed]:
        owner = request.api_key_id
        filters: list[str] = []
        params: list[Any] = []
        if request.session_id is not None:
            filters.append("session_id = ?")
            params.append(request.session_id)
        if request.type is not None:
            filters.append("type = ?")
            params.append(request.type.value)
        if request.older_than_days is not None:
            filters.append("updated_at < ?")
            params.append(now_ms - request.older_than_days * DAY_MS)
        where = " AND ".join(filters) or "1"
        owner_clause, owner_params = owner_sql(owner, alias="")
        with self.db.transaction():
            by_type = {
                str(r["type"]): int(r["n"])
                for r in self.db.query(
                    f"SELECT type, count(*) AS n FROM memories WHERE {owner_clause} AND {where}"
                    " GROUP BY type",
                    [*owner_params, *params],
                )
            }
            # Retired versions matching the filters, and every predecessor of a memory
            # being forgotten (a fact's history goes with it).
            history_ids = [
                str(r["id"])
                for r in self.db.query(
                    "WITH RECURSIVE gone(id, depth) AS ("
                    f" SELECT id, 0 FROM memories WHERE {owner_clause} AND {where}"
                    f" UNION SELECT id, 0 FROM memory_history WHERE {owner_clause} AND {where}"
                    " UNION SELECT h.id, g.depth + 1 FROM memory_history h JOIN gone g"
                    f" ON h.superseded_by = g.id WHERE h.api_key_id = ? AND g.depth < 1000)"
                    " SELECT DISTINCT h.id FROM memory_history h JOIN gone g ON h.id = g.id"
                    f" WHERE {owner_sql(owner, alias='h')[0]}",
                    [*owner_params, *params, *owner_params, *params, owner, *owner_params],
                )
            ]
            matched = sum(by_type.values())
            removed = Removed()
            if not request.dry_run:
                removed = remove_rows(self.db, owner, where, params, now_ms)
                for start in range(0, len(history_ids), 500):
                    part = history_ids[start : start + 500]
                    self.db.execute(
                        f"DELETE FROM memory_history WHERE {owner_clause}"
                        f" AND id IN ({','.join('?' for _ in part)})",
                        [*owner_params, *part],
                    )
        if not request.dry_run and (removed or history_ids):
            purge_keyword_index(self.db)
            self.db.checkpoint()
        outcome = ForgetOutcome(
            matched=matched,
            deleted=len(removed.ids),
            history=len(history_ids),
            by_type=by_type,
            dry_run=request.dry_run,
        )
        return outcome, removed


def _live_version(row: Row) -> MemoryVersion:
    memory = row_to_memory(row)
    return MemoryVersion.model_construct(
        **dict(memory),
        valid_from=memory.created_at,
        valid_to=None,
        superseded_by=None,
        reason=None,
    )


def _retired_version(row: Row) -> MemoryVersion:
    fields = dict(row_to_memory({**row, "expires_at": None}))
    return MemoryVersion.model_construct(
        **fields,
        valid_from=fields["created_at"],
        valid_to=from_millis(row["valid_to"]),
        superseded_by=row["superseded_by"],
        reason=row["reason"],
    )
