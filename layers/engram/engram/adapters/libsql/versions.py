"""Per-owner write versions: how the in-memory vector indexes of every process catch up.

Every write to an owner's memories bumps the owner's version in the same
transaction and stamps the rows it wrote; a deletion leaves a tombstone. A
process whose index is behind reads only the rows and tombstones since.

Inside a ``read_scope`` (one retrieval) the owner's version is read once, with FTS5's
averages record: the vector index, the keyword postings and the lazy-embedding check
each need it, and against a server each separate read was a round trip. A write in
the scope (``bump_version``) drops what was read, so the scope still sees its own writes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from engram.adapters.libsql.database import Database, Row
from engram.adapters.libsql.sql import owner_sql
from engram.domain.errors import StorageError

__all__ = [
    "CURRENT_VERSION",
    "OwnerState",
    "bump_every_version",
    "bump_version",
    "bumped",
    "current_version",
    "owner_state",
    "read_in_scope",
    "read_scope",
    "tombstones_since",
]


@dataclass(frozen=True)
class OwnerState:
    version: int
    fts_averages: bytes | None  # FTS5's averages record (row count, column sizes)
    # False when FTS5's tables could not be read: the version still serves the vector
    # index (a broken keyword index must not cost the vectors too).
    fts_readable: bool = True


# (id of the Database, owner) -> what was read in the current scope; None outside one.
_read: ContextVar[dict[tuple[int, str], OwnerState] | None] = ContextVar(
    "engram_owner_states", default=None
)


@contextmanager
def read_scope() -> Iterator[None]:
    token = _read.set({})
    try:
        yield
    finally:
        _read.reset(token)


def read_in_scope(db: Database, owner: str) -> OwnerState | None:
    """What the current scope has already read of the owner, without reading it."""
    read = _read.get()
    return None if read is None else read.get((id(db), owner))


def owner_state(db: Database, owner: str) -> OwnerState:
    """The owner's version and FTS5's averages, read once per scope (always outside one)."""
    read = _read.get()
    key = (id(db), owner)
    if read is not None and key in read:
        return read[key]
    try:
        row = db.query_one(
            "SELECT (SELECT version FROM owner_versions WHERE api_key_id = ?) AS version,"
            " (SELECT block FROM memory_fts_data WHERE id = 1) AS block",
            (owner,),
        )
        state = OwnerState(int((row or {}).get("version") or 0), (row or {}).get("block"))
    except StorageError:
        state = OwnerState(current_version(db, owner), None, fts_readable=False)
    if read is not None:
        read[key] = state
    return state


def current_version(db: Database, owner: str) -> int:
    """The owner's version now, read past any scope (0 before its first write)."""
    value = db.scalar("SELECT version FROM owner_versions WHERE api_key_id = ?", (owner,))
    return int(value or 0)


def _forget_owner_states(db: Database, owner: str | None = None) -> None:
    """Drop what the scope read of ``owner`` (every owner: None) after a write."""
    read = _read.get()
    if read:
        for key in [k for k in read if k[0] == id(db) and (owner is None or k[1] == owner)]:
            del read[key]


_BUMP = (
    "INSERT INTO owner_versions (api_key_id, version) VALUES (?, 1)"
    " ON CONFLICT (api_key_id) DO UPDATE SET version = version + 1 RETURNING version"
)
# The owner's version as a statement run after ``bumped``'s bump reads it (owner: one ?).
CURRENT_VERSION = "(SELECT version FROM owner_versions WHERE api_key_id = ?)"


def bump_version(db: Database, owner: str) -> int:
    """The owner's next version (call inside the write's transaction)."""
    _forget_owner_states(db, owner)
    return int(db.scalar(_BUMP, (owner,)))


def bumped(db: Database, owner: str, sql: str, params: Sequence[Any]) -> list[Row]:
    """``sql``'s rows, run right after the owner's version is bumped and in the same
    round trip to a server (call inside the write's transaction); it reads the new
    version as ``CURRENT_VERSION``."""
    _forget_owner_states(db, owner)
    return db.query_batch([(_BUMP, (owner,)), (sql, params)])[1]


def bump_every_version(db: Database) -> None:
    """Every owner's next version (call inside the write's transaction): a change to
    every owner's rows, such as a new embedding, that every process must notice."""
    _forget_owner_states(db)
    db.execute("UPDATE owner_versions SET version = version + 1")


def tombstones_since(owner: str, since: int) -> tuple[str, tuple[Any, ...]]:
    """The statement reading the seqs of ``owner``'s rows deleted after version ``since``:
    what an index that is behind removes to catch up."""
    where, params = owner_sql(owner, alias="")
    return f"SELECT seq FROM memory_tombstones WHERE {where} AND version > ?", (*params, since)
