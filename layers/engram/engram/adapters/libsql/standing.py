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
from dataclasses import dataclass, field
from typing import Any

from ...models import OwnerFilter
from .database import Database, Row
from .sql import COLUMNS, live, owner_sql
from .versions import read_in_scope

__all__ = ["CAP", "StandingCache", "StandingRead", "all_standing_sql", "standing_sql"]

# Instructions kept per owner at most, and their bytes: an owner with more is read with
# the time conditions in SQL at every query, the statement it took before this cache.
CAP = 64
_MAX_BYTES = 32 * 1024
_ENTRIES = 1024  # owners (with their scope) kept, least recently used evicted: <= 32 MiB
_INSTRUCTION = "json_extract(m.metadata, '$.category') = 'instruction'"
_ORDER = " ORDER BY m.updated_at DESC, m.seq DESC LIMIT ?"

_Key = tuple[tuple[str, ...], str | None]
# The owners' versions, and their instructions then (None: too many to keep).
_Entry = tuple[tuple[int, ...], list[Row] | None]


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


def all_standing_sql(who: OwnerFilter, now_ms: int) -> tuple[str, list[Any]]:
    """Every unexpired standing instruction of the owner, newest first, whatever its age
    (retention can be raised; an expiry cannot pass back): what the cache keeps. One more
    than ``CAP``, to tell an owner with more."""
    owner_clause, params = owner_sql(who)
    live_sql, extra = live(now_ms)
    return (
        f"SELECT {COLUMNS} FROM memories m WHERE {owner_clause} AND {live_sql}"
        f" AND {_INSTRUCTION}{_ORDER}",
        [*params, *extra, CAP + 1],
    )


def current(rows: list[Row], now_ms: int, cutoff_ms: int, limit: int) -> list[Row]:
    """``rows`` (newest first) as ``standing_sql`` would filter them at ``now_ms``."""
    kept = [
        r
        for r in rows
        if (r["expires_at"] is None or r["expires_at"] > now_ms) and r["updated_at"] >= cutoff_ms
    ]
    return kept[:limit]


def _small(rows: list[Row]) -> bool:
    size = sum(len(r["content"]) + len(r["metadata"] or "") + 200 for r in rows)
    return len(rows) <= CAP and size <= _MAX_BYTES


@dataclass
class StandingRead:
    """One retrieval's read of the standing instructions: ``statement`` goes with the
    retrieval's other reads (one round trip to a server); None when the cache knows the
    answer. ``rows`` then makes the instructions of what it returned."""

    cache: StandingCache
    who: OwnerFilter
    now_ms: int
    cutoff_ms: int
    limit: int
    versions: tuple[int, ...] | None  # None: nothing to keep (the scope read none)
    kept: list[Row] | None  # the cache's answer
    statement: tuple[str, list[Any]] | None = field(init=False)

    def __post_init__(self) -> None:
        if self.kept is not None:
            self.statement = None
        elif self.versions is None:  # read as it is, with the time conditions
            self.statement = standing_sql(self.who, self.now_ms, self.cutoff_ms, self.limit)
        else:  # read to be kept
            self.statement = all_standing_sql(self.who, self.now_ms)

    def rows(self, result: list[Row]) -> list[Row]:
        if self.kept is not None:
            return current(self.kept, self.now_ms, self.cutoff_ms, self.limit)
        if self.versions is None:
            return result
        if _small(result):
            self.cache.put(self.who, self.versions, result)
            return current(result, self.now_ms, self.cutoff_ms, self.limit)
        self.cache.put(self.who, self.versions, None)  # from now on, standing_sql at once
        return self.cache.db.query(*standing_sql(self.who, self.now_ms, self.cutoff_ms, self.limit))


class StandingCache:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def read(self, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int) -> StandingRead:
        """How this retrieval reads ``who``'s instructions: from the cache, or the
        statement to send."""
        versions = self._versions(who)
        known = self._get(who, versions)
        if known is not None and known[1] is None:
            versions = None  # known to be too many to keep: read as they are
        kept = None if known is None else known[1]
        return StandingRead(self, who, now_ms, cutoff_ms, limit, versions, kept)

    def _versions(self, who: OwnerFilter) -> tuple[int, ...] | None:
        """The owners' versions as this retrieval has already read them (the vector
        index and the keyword postings read them first); None when it has not: reading
        them for this alone would cost the statement the cache spares (a round trip to
        a server)."""
        states = [read_in_scope(self.db, owner) for owner in who.owners]
        if any(state is None for state in states):
            return None
        return tuple(state.version for state in states if state is not None)

    def _get(self, who: OwnerFilter, versions: tuple[int, ...] | None) -> _Entry | None:
        if versions is None:
            return None
        key = (tuple(who.owners), who.session_id)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != versions:
                return None
            self._entries.move_to_end(key)
            return entry

    def put(self, who: OwnerFilter, versions: tuple[int, ...], rows: list[Row] | None) -> None:
        """Keep ``rows`` (read after ``versions`` were: at least as new as they say), or
        that there are too many to keep (None)."""
        key = (tuple(who.owners), who.session_id)
        with self._lock:
            self._entries[key] = (versions, rows)
            self._entries.move_to_end(key)
            while len(self._entries) > _ENTRIES:
                self._entries.popitem(last=False)
