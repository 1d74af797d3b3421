"""Standing instructions, read from the database once per owner version.

Every retrieval injects the owner's standing instructions ("keep answers under 200
words"), so every retrieval read them: a statement each time (0.2-0.4 ms from a file,
most of it the binding's cost per statement, as most owners have none). They change only
with a write to the owner's memories, and every such write moves the owner's version
(``versions.py``), which the retrieval has already read: the owner's instructions are
kept per owners, session and versions, and expiry and retention, which move with the
clock and not with writes, are applied to them at each query as the SQL would.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from ...models import OwnerFilter
from .database import Database, Row
from .sql import COLUMNS, live, owner_sql
from .versions import read_in_scope

__all__ = ["CAP", "StandingCache", "all_standing_sql", "standing_sql"]

# Instructions kept per owner at most; an owner with more is read with the time
# conditions in SQL at every query (the statement this cache otherwise spares).
CAP = 64
_ENTRIES = 1024  # owners (with their scope) kept, least recently used evicted
_INSTRUCTION = "json_extract(m.metadata, '$.category') = 'instruction'"
_ORDER = " ORDER BY m.updated_at DESC, m.seq DESC LIMIT ?"

_Key = tuple[tuple[str, ...], str | None]


def standing_sql(
    who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int
) -> tuple[str, list[Any]]:
    """The owner's live standing instructions within retention, newest first. The
    category condition is word for word the WHERE of the partial index
    ``memories_owner_instructions`` (migration 0005): SQLite uses a partial index only
    for a query that repeats its condition."""
    owner_clause, params = owner_sql(who)
    live_sql, extra = live(now_ms)
    return (
        f"SELECT {COLUMNS} FROM memories m WHERE {owner_clause} AND {live_sql}"
        f" AND m.updated_at >= ? AND {_INSTRUCTION}{_ORDER}",
        [*params, *extra, cutoff_ms, limit],
    )


def all_standing_sql(who: OwnerFilter) -> tuple[str, list[Any]]:
    """Every standing instruction of the owner, whatever its time, newest first: what
    the cache keeps (one more than ``CAP``, to tell an owner with more)."""
    owner_clause, params = owner_sql(who)
    return (
        f"SELECT {COLUMNS} FROM memories m WHERE {owner_clause} AND {_INSTRUCTION}{_ORDER}",
        [*params, CAP + 1],
    )


def current(rows: list[Row], now_ms: int, cutoff_ms: int, limit: int) -> list[Row]:
    """``rows`` (newest first) as ``standing_sql`` would filter them at ``now_ms``."""
    kept = [
        r
        for r in rows
        if (r["expires_at"] is None or r["expires_at"] > now_ms) and r["updated_at"] >= cutoff_ms
    ]
    return kept[:limit]


class StandingCache:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._entries: OrderedDict[_Key, tuple[tuple[int, ...], list[Row]]] = OrderedDict()
        self._lock = threading.Lock()

    def versions(self, who: OwnerFilter) -> tuple[int, ...] | None:
        """The owners' versions as this retrieval has already read them (the vector
        index and the keyword postings read them first); None when it has not: reading
        them for this alone would cost the statement the cache spares (a round trip to
        a server)."""
        states = [read_in_scope(self.db, owner) for owner in who.owners]
        if any(state is None for state in states):
            return None
        return tuple(state.version for state in states if state is not None)

    def get(self, who: OwnerFilter, versions: tuple[int, ...] | None) -> list[Row] | None:
        """Every standing instruction of ``who`` at ``versions``, if known."""
        if versions is None:
            return None
        key = (tuple(who.owners), who.session_id)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != versions:
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, who: OwnerFilter, versions: tuple[int, ...] | None, rows: list[Row]) -> None:
        """Keep ``rows`` (read after ``versions`` were: at least as new as they say)."""
        if versions is None or len(rows) > CAP:
            return
        key = (tuple(who.owners), who.session_id)
        with self._lock:
            self._entries[key] = (versions, rows)
            self._entries.move_to_end(key)
            while len(self._entries) > _ENTRIES:
                self._entries.popitem(last=False)
