"""The profile (``models/profile.py``), read from the database once per owner version.

Every retrieval injects the owner's profile (who they are, their diet, home, family,
standing instructions), so every retrieval read it: a statement each time (0.2-0.4 ms
from a file, most of it the binding's cost per statement). It changes only with a write
to the owner's memories, and every such write moves the owner's version
(``versions.py``), which the retrieval has already read: the owner's profile is kept
per owners, session and versions, and expiry and retention, which move with the clock
and not with writes, are applied to it at each query as the SQL would.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from engram.adapters.libsql.database import Database, Row
from engram.adapters.libsql.sql import COLUMNS, live, owner_sql
from engram.adapters.libsql.versions import read_in_scope
from engram.domain.models import OwnerFilter
from engram.domain.models.profile import PROFILE_CATEGORIES

__all__ = ["CAP", "PROFILE_SQL", "ProfileCache", "ProfileRead", "all_profile_sql", "profile_sql"]

# Profile memories kept per owner at most, and their bytes: an owner with more is read
# with the time conditions in SQL at every query, the statement it took before this cache.
CAP = 64
_MAX_BYTES = 32 * 1024
_ENTRIES = 1024  # owners (with their scope) kept, least recently used evicted: <= 32 MiB
_CATEGORIES = ", ".join(f"'{c}'" for c in sorted(PROFILE_CATEGORIES))
# models/profile.py's rule in SQL: pinned (JSON true), or a profile category neither
# unpinned (JSON false), nor said by the assistant, nor dated (an event, a plan). Word
# for word the WHERE of the partial index memories_owner_profile (migration 0007, with
# ``m.`` left out): SQLite uses a partial index only for a query that repeats its
# condition.
PROFILE_SQL = (
    "(json_type(m.metadata, '$.pinned') IS 'true'"
    f" OR (json_extract(m.metadata, '$.category') IN ({_CATEGORIES})"
    " AND json_type(m.metadata, '$.pinned') IS NOT 'false'"
    " AND json_extract(m.metadata, '$.source') IS NOT 'assistant'"
    " AND json_type(m.metadata, '$.when') IS NULL))"
)
_ORDER = " ORDER BY m.updated_at DESC, m.seq DESC LIMIT ?"

_Key = tuple[tuple[str, ...], str | None]
# The owners' versions, and their profile then (None: too many to keep).
_Entry = tuple[tuple[int, ...], list[Row] | None]


def profile_sql(who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int) -> tuple[str, list[Any]]:
    """The owner's live profile memories within retention, newest first."""
    owner_clause, params = owner_sql(who)
    live_sql, extra = live(now_ms)
    return (
        f"SELECT {COLUMNS} FROM memories m WHERE {owner_clause} AND {live_sql}"
        f" AND m.updated_at >= ? AND {PROFILE_SQL}{_ORDER}",
        [*params, *extra, cutoff_ms, limit],
    )


def all_profile_sql(who: OwnerFilter, now_ms: int) -> tuple[str, list[Any]]:
    """Every unexpired profile memory of the owner, newest first, whatever its age
    (retention can be raised; an expiry cannot pass back): what the cache keeps. One more
    than ``CAP``, to tell an owner with more."""
    owner_clause, params = owner_sql(who)
    live_sql, extra = live(now_ms)
    return (
        f"SELECT {COLUMNS} FROM memories m WHERE {owner_clause} AND {live_sql}"
        f" AND {PROFILE_SQL}{_ORDER}",
        [*params, *extra, CAP + 1],
    )


def current(rows: list[Row], now_ms: int, cutoff_ms: int, limit: int) -> list[Row]:
    """``rows`` (newest first) as ``profile_sql`` would filter them at ``now_ms``."""
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
class ProfileRead:
    """One retrieval's read of the profile: ``statement`` goes with the retrieval's other
    reads (one round trip to a server); None when the cache knows the answer. ``rows``
    then makes the profile of what it returned."""

    cache: ProfileCache
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
            self.statement = profile_sql(self.who, self.now_ms, self.cutoff_ms, self.limit)
        else:  # read to be kept
            self.statement = all_profile_sql(self.who, self.now_ms)

    def rows(self, result: list[Row]) -> list[Row]:
        if self.kept is not None:
            return current(self.kept, self.now_ms, self.cutoff_ms, self.limit)
        if self.versions is None:
            return result
        if _small(result):
            self.cache.put(self.who, self.versions, result)
            return current(result, self.now_ms, self.cutoff_ms, self.limit)
        self.cache.put(self.who, self.versions, None)  # from now on, profile_sql at once
        return self.cache.db.query(*profile_sql(self.who, self.now_ms, self.cutoff_ms, self.limit))


class ProfileCache:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def read(self, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int) -> ProfileRead:
        """How this retrieval reads ``who``'s profile: from the cache, or the statement
        to send."""
        versions = self._versions(who)
        known = self._get(who, versions)
        if known is not None and known[1] is None:
            versions = None  # known to be too many to keep: read as they are
        kept = None if known is None else known[1]
        return ProfileRead(self, who, now_ms, cutoff_ms, limit, versions, kept)

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
