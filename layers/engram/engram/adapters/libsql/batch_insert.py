"""A batch of memories written in a handful of round trips, whatever its size.

An import wrote each item on its own: look up its key, check its id, bump the owner's
version, insert, recompute its neighbours' contexts: four to six round trips an item,
2,002 for 500 items, 40 s at 20 ms a round trip (past API Gateway's 30 s; issue 33).
Here the items whose key is new to their owner are written together: one lookup of the
batch's keys and ids, one version per owner, the rows in statement batches, each
touched session's contexts once. The others (a key stored already, or twice in the
batch, an id twice) are left to ``MemoryRepository.upsert``, one by one, after.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from engram.adapters.libsql.context import date_words, refresh_sessions
from engram.adapters.libsql.database import Database
from engram.adapters.libsql.sql import dumps
from engram.adapters.libsql.versions import bump_version
from engram.domain.errors import ConflictError
from engram.domain.models import Memory, MemoryCreate, MemoryImport, UpsertOutcome
from engram.domain.models.common import from_millis, to_millis

__all__ = ["insert_new"]

CHUNK = 500  # rows per statement batch, parameters per lookup


def _chunks(values: Sequence[str]) -> list[Sequence[str]]:
    return [values[i : i + CHUNK] for i in range(0, len(values), CHUNK)]


def _stored_keys(db: Database, items: Sequence[tuple[MemoryCreate, str]]) -> set[tuple[str, str]]:
    """(owner, key) pairs of the batch that a row holds already (live or expired)."""
    by_owner: dict[str, list[str]] = {}
    for item, key in items:
        by_owner.setdefault(item.api_key_id, []).append(key)
    found: set[tuple[str, str]] = set()
    for owner, keys in by_owner.items():
        for part in _chunks(sorted(set(keys))):
            marks = ",".join("?" * len(part))
            rows = db.query(
                f"SELECT key FROM memories WHERE api_key_id = ? AND key IN ({marks})",
                (owner, *part),
            )
            found |= {(owner, str(r["key"])) for r in rows}
    return found


def _taken_ids(db: Database, ids: Sequence[str]) -> set[str]:
    taken: set[str] = set()
    for part in _chunks(ids):
        marks = ",".join("?" * len(part))
        rows = db.query(f"SELECT id FROM memories WHERE id IN ({marks})", tuple(part))
        taken |= {str(r["id"]) for r in rows}
    return taken


def _wanted_id(item: MemoryCreate) -> str | None:
    """The id an imported memory asks for (None: a new one is made)."""
    return item.id if isinstance(item, MemoryImport) else None


def insert_new(
    db: Database, items: Sequence[tuple[MemoryCreate, str]], now_ms: int
) -> dict[int, UpsertOutcome]:
    """Insert the items (index -> outcome) whose key is new to their owner and to the
    batch, inside the caller's transaction; the indexes missing are the caller's to
    upsert one by one. A new item naming an id another memory has is refused, as one
    item's import would be."""
    stored = _stored_keys(db, items)
    seen: set[tuple[str, str]] = set()
    ids_seen: set[str] = set()
    fresh: list[int] = []
    for index, (item, key) in enumerate(items):
        pair = (item.api_key_id, key)
        wanted = _wanted_id(item)
        if pair in stored or pair in seen or (wanted and wanted in ids_seen):
            continue
        seen.add(pair)
        if wanted:
            ids_seen.add(wanted)
        fresh.append(index)
    explicit = {i: _wanted_id(items[i][0]) for i in fresh if _wanted_id(items[i][0])}
    taken = _taken_ids(db, [str(v) for v in explicit.values()])
    for index, wanted in explicit.items():
        if wanted in taken:
            raise ConflictError(
                f"item {index}: a memory with this id already exists under another key",
                field=f"[{index}].id",
            )
    owners = {items[i][0].api_key_id for i in fresh}
    versions = {owner: bump_version(db, owner) for owner in sorted(owners)}
    rows, outcomes = [], {}
    for index in fresh:
        item, key = items[index]
        memory_id, created = str(uuid.uuid4()), now_ms
        updated = now_ms
        if isinstance(item, MemoryImport):
            memory_id = item.id or memory_id
            created = to_millis(item.created_at) if item.created_at else now_ms
            updated = to_millis(item.updated_at) if item.updated_at else created
        expires = to_millis(item.expires_at) if item.expires_at else None
        rows.append(
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
                versions[item.api_key_id],
            )
        )
        memory = Memory(
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
        outcomes[index] = UpsertOutcome(memory, True, True)
    for start in range(0, len(rows), CHUNK):
        db.executemany(
            "INSERT INTO memories (id, api_key_id, session_id, type, key, content, metadata,"
            " created_at, updated_at, expires_at, context, version)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            rows[start : start + CHUNK],
        )
    refresh_sessions(db, sorted({(r[1], r[2]) for r in rows if r[2] is not None}))
    return outcomes
