"""Retrieval counts from a file: added up in memory and written together. None may be
lost to the engine closing or to one failed write, and a failed write is reported."""

from __future__ import annotations

import threading
import time

import pytest

from engram.adapters.libsql import Database
from engram.adapters.libsql.migrate import apply_migrations
from engram.adapters.libsql.stats import RetrievalStatsRepository
from engram.errors import StorageError


@pytest.fixture
def path(db_path):
    db = Database(f"file:{db_path}")
    apply_migrations(db)
    db.close()
    return db_path


def written(path):
    check = Database(f"file:{path}")
    try:
        return check.scalar("SELECT coalesce(sum(retrievals), 0) FROM retrieval_stats")
    finally:
        check.close()


def test_close_waits_for_a_flush_under_way(path):
    """The timer took the counts and waits for the connection (a retrieval holds it);
    closing must not return before they are written."""
    db = Database(f"file:{path}")
    stats = RetrievalStatsRepository(db, flush_after_s=0.05)
    held, release = threading.Event(), threading.Event()

    def retrieval_holding_the_connection():
        with db._lock:
            held.set()
            release.wait()

    holder = threading.Thread(target=retrieval_holding_the_connection)
    holder.start()
    held.wait()
    stats.record("k1", True, 1)
    time.sleep(0.3)  # the timer fired: it holds the counts, waiting for the connection
    closing = threading.Thread(target=stats.close)
    closing.start()
    time.sleep(0.1)
    assert closing.is_alive()  # waiting for the timer's write, not returned
    release.set()
    closing.join(5)
    holder.join()
    db.close()
    assert written(path) == 1


def test_a_retrieval_finishing_after_close_writes_its_own(path):
    db = Database(f"file:{path}")
    stats = RetrievalStatsRepository(db, flush_after_s=0.05)
    stats.close()
    stats.record("k1", True, 1)
    db.close()
    assert written(path) == 1
    with pytest.raises(StorageError):  # the file is closed: the caller hears it
        stats.record("k1", True, 2)


def test_a_failed_write_is_tried_again_and_reported(path):
    db = Database(f"file:{path}")
    failures, recoveries = [], []
    stats = RetrievalStatsRepository(
        db, flush_after_s=0.05, failed=failures.append, recovered=lambda: recoveries.append(1)
    )
    real, calls = db.executemany, []

    def locked_once(sql, rows):
        calls.append(1)
        if len(calls) == 1:
            raise StorageError("database is locked")  # another process held the write lock
        return real(sql, rows)

    db.executemany = locked_once
    stats.record("k1", True, 1)  # the last retrieval for a while
    deadline = time.monotonic() + 5
    while db.scalar("SELECT coalesce(sum(retrievals), 0) FROM retrieval_stats") != 1:
        assert time.monotonic() < deadline, f"never written: {stats._pending}"
        time.sleep(0.05)
    assert failures == ["database is locked"] and recoveries
    stats.close()
    db.close()


def test_a_database_closed_under_it_is_not_tried_again(path):
    """Its owner closed the file without closing the counter (a database handed in):
    one failed write, reported, and no timer trying every second for ever."""
    db = Database(f"file:{path}")
    failures = []
    stats = RetrievalStatsRepository(db, flush_after_s=0.05, failed=failures.append)
    stats.record("k1", True, 1)
    db.close()
    time.sleep(0.5)
    assert len(failures) == 1 and stats._timer is None
