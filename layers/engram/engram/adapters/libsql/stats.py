"""The ``retrieval_stats`` table: retrievals and hits per owner (the hit rate).

A chat's retrieval must not wait for its own counter. Against a server the increment
goes with the process's next request (``execute_deferred``). From a file it was a write
of its own per retrieval (a commit, ~0.25 ms, and the write lock taken by every read
path); counts are now added up in memory and written together at most ``flush_after_s``
later, before any read of them, and when the engine closes (which waits for a flush under
way; a retrieval finishing after that writes its own). A failed flush is tried again
``flush_after_s`` later and reported to the health log. Like the server's deferred
statement, what a crashed process had not yet written is lost: they are statistics.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol

from engram.adapters.libsql.database import Database
from engram.domain.errors import StorageError

__all__ = ["RetrievalStatsRepository"]

log = logging.getLogger(__name__)

_ADD = (
    "INSERT INTO retrieval_stats (api_key_id, retrievals, hits, updated_at)"
    " VALUES (?, ?, ?, ?) ON CONFLICT (api_key_id) DO UPDATE SET"
    " retrievals = retrievals + excluded.retrievals, hits = hits + excluded.hits,"
    " updated_at = max(updated_at, excluded.updated_at)"
)


class Timer(Protocol):
    def start(self) -> None: ...
    def cancel(self) -> None: ...


def thread_timer(delay_s: float, fire: Callable[[], None]) -> Timer:
    timer = threading.Timer(delay_s, fire)
    timer.daemon = True
    timer.name = "engram-stats"
    return timer


class RetrievalStatsRepository:
    def __init__(
        self,
        db: Database,
        *,
        flush_after_s: float = 1.0,
        failed: Callable[[str], None] = lambda message: None,
        recovered: Callable[[], None] = lambda: None,
        timer: Callable[[float, Callable[[], None]], Timer] = thread_timer,
    ) -> None:
        """``timer`` arms the delayed flush; tests hand in one they fire themselves."""
        self.db = db
        self.flush_after_s = flush_after_s
        # What the health report hears: a flush off the request path cannot raise to it.
        self._failed, self._recovered = failed, recovered
        self._pending: dict[str, tuple[int, int, int]] = {}  # owner -> retrievals, hits, at
        self._lock = threading.Lock()
        self._new_timer = timer
        self._timer: Timer | None = None
        self._flushing = threading.Lock()  # one flush at a time: close waits for the timer's
        self._closed = False

    def record(self, owner: str, hit: bool, now_ms: int) -> None:
        if self.db.is_remote:
            self.db.execute_deferred(_ADD, (owner, 1, int(hit), now_ms))
            return
        with self._lock:
            retrievals, hits, at = self._pending.get(owner, (0, 0, now_ms))
            self._pending[owner] = (retrievals + 1, hits + int(hit), max(at, now_ms))
            self._arm()
            closed = self._closed
        if closed:  # after close: written now, or the caller hears it was not
            self.flush()

    def _arm(self) -> None:
        # with self._lock held
        if self._timer is None and not self._closed:
            self._timer = self._new_timer(self.flush_after_s, self._flush_quietly)
            self._timer.start()

    def flush(self) -> None:
        """Write the counts added up since the last flush (one transaction)."""
        with self._flushing:
            self._flush()

    def _flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        if not pending:
            return
        try:
            with self.db.transaction():
                self.db.executemany(_ADD, [(o, *counts) for o, counts in pending.items()])
        except StorageError:
            if self.db.closed:  # closed under it (by its owner): nothing left to write to
                raise
            with self._lock:  # kept for the next flush, added to what came since
                for owner, (retrievals, hits, at) in pending.items():
                    r, h, a = self._pending.get(owner, (0, 0, at))
                    self._pending[owner] = (r + retrievals, h + hits, max(a, at))
                self._arm()  # tried again later even if no retrieval comes
            raise
        self._recovered()

    def _flush_quietly(self) -> None:
        try:
            self.flush()
        except StorageError as exc:  # a locked or read-only file: tried again later
            log.info("retrieval counts not written yet: %s", exc.message)
            self._failed(exc.message)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._flush_quietly()  # waits for a flush under way (self._flushing)

    def counts(self, owner: str | None) -> tuple[int, int]:
        self._flush_quietly()
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
