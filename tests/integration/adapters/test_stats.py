"""Retrieval counts from a file: added up in memory and written together. None may be
lost to the engine closing or to one failed write, and a failed write is reported."""

from __future__ import annotations

import threading

import pytest

from engram.adapters.libsql import Database
from engram.adapters.libsql.migrate import apply_migrations
from engram.adapters.libsql.stats import RetrievalStatsRepository
from engram.domain.errors import StorageError


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


class Timers:
    """The delayed flushes, fired by the test instead of by the clock."""

    def __init__(self) -> None:
        self.armed: list[Timers.Timer] = []

    class Timer:
        def __init__(self, fire) -> None:
            self.fire, self.live = fire, False

        def start(self) -> None:
            self.live = True

        def cancel(self) -> None:
            self.live = False

    def __call__(self, delay_s, fire) -> Timers.Timer:
        timer = Timers.Timer(fire)
        self.armed.append(timer)
        return timer

    def live(self) -> list[Timers.Timer]:
        return [t for t in self.armed if t.live]

    def fire(self) -> None:
        (timer,) = self.live()
        timer.live = False
        timer.fire()


class SignallingDatabase(Database):
    """Says when someone asks for a transaction (and is about to wait for the file)."""

    asking: threading.Event | None = None

    def transaction(self):
        if self.asking is not None:
            self.asking.set()
        return super().transaction()


def test_close_waits_for_a_flush_under_way(path):
    """The timer took the counts and waits for the connection (a retrieval holds it);
    closing must not return before they are written."""
    db = SignallingDatabase(f"file:{path}")
    timers = Timers()
    stats = RetrievalStatsRepository(db, timer=timers)
    held, release = threading.Event(), threading.Event()

    def retrieval_holding_the_connection():
        with db.transaction():
            held.set()
            release.wait()

    holder = threading.Thread(target=retrieval_holding_the_connection)
    holder.start()
    held.wait()
    stats.record("k1", True, 1)
    db.asking = threading.Event()
    firing = threading.Thread(target=timers.fire)
    firing.start()
    assert db.asking.wait(5)  # the timer holds the counts, waiting for the connection
    closing = threading.Thread(target=stats.close)
    closing.start()
    closing.join(0.2)
    assert closing.is_alive()  # waiting for the timer's write, not returned
    release.set()
    for thread in (closing, firing, holder):
        thread.join(5)
    db.close()
    assert written(path) == 1


def test_a_retrieval_finishing_after_close_writes_its_own(path):
    db = Database(f"file:{path}")
    stats = RetrievalStatsRepository(db, timer=Timers())
    stats.close()
    stats.record("k1", True, 1)
    db.close()
    assert written(path) == 1
    with pytest.raises(StorageError):  # the file is closed: the caller hears it
        stats.record("k1", True, 2)


def test_a_failed_write_is_tried_again_and_reported(path):
    db = Database(f"file:{path}")
    failures, recoveries, timers = [], [], Timers()
    stats = RetrievalStatsRepository(
        db, failed=failures.append, recovered=lambda: recoveries.append(1), timer=timers
    )
    real, calls = db.executemany, []

    def locked_once(sql, rows):
        calls.append(1)
        if len(calls) == 1:
            raise StorageError("database is locked")  # another process held the write lock
        return real(sql, rows)

    db.executemany = locked_once
    stats.record("k1", True, 1)  # the last retrieval for a while
    timers.fire()
    assert failures == ["database is locked"] and not recoveries
    timers.fire()  # armed again by the failure, though no retrieval came
    assert written_now(db) == 1 and recoveries
    stats.close()
    db.close()


def written_now(db):
    return db.scalar("SELECT coalesce(sum(retrievals), 0) FROM retrieval_stats")


def test_a_database_closed_under_it_is_not_tried_again(path):
    """Its owner closed the file without closing the counter (a database handed in):
    one failed write, reported, and no timer trying every second for ever."""
    db = Database(f"file:{path}")
    failures, timers = [], Timers()
    stats = RetrievalStatsRepository(db, failed=failures.append, timer=timers)
    stats.record("k1", True, 1)
    db.close()
    timers.fire()
    assert len(failures) == 1 and not timers.live()
