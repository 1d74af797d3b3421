import threading

from engram import MemorySettings, MemorySettingsUpdate
from engram.adapters.libsql import SettingsDocumentsRepository
from engram.adapters.sealing import Sealer, new_key, parse_keys
from engram.app.settings import SettingsStore
from engram.domain.models import Strategy

SEALER = Sealer(parse_keys(new_key()))


def store_over(db, **options):
    """Another process's settings store over the same database."""
    return SettingsStore(SettingsDocumentsRepository(db, SEALER), db, lambda: 2, **options)


class Ticker:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_defaults_until_something_is_stored(engine):
    assert engine.settings.get() == MemorySettings()


def test_updates_persist_and_merge(engine, db):
    engine.settings.update(MemorySettingsUpdate(enabled=True, max_tokens=500))
    engine.settings.update(MemorySettingsUpdate(strategy="recent"))
    fresh = store_over(db)
    stored = fresh.get()
    assert (stored.enabled, stored.max_tokens, stored.strategy) == (True, 500, Strategy.EXACT)
    assert stored.retention_days == 30


def test_cached_in_process_and_invalidated_on_write(engine, db):
    ticker = Ticker()
    reader = store_over(db, ttl_s=10, monotonic=ticker)
    assert reader.get().enabled is False
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    assert reader.get().enabled is False  # another process's cache, still fresh
    ticker.t = 11
    assert reader.get().enabled is True  # the TTL bounds staleness
    reader.update(MemorySettingsUpdate(max_tokens=7))
    assert reader.get().max_tokens == 7  # own writes are visible at once
    reader.invalidate()
    assert reader.get().max_tokens == 7


def test_an_unreadable_row_falls_back_to_defaults(engine, db):
    db.execute("INSERT INTO settings (namespace, value, updated_at) VALUES ('memory', '[1,2]', 0)")
    engine.settings.invalidate()
    assert engine.settings.get() == MemorySettings()
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    assert engine.settings.get().enabled is True


def test_concurrent_writers_of_both_documents_never_deadlock(engine):
    """Enabling or disabling Qdrant writes the memory document inside its own
    transaction; a memory-settings write racing it once deadlocked both requests."""
    from engram.domain.models import QdrantSettingsUpdate

    rounds, failures = 200, []

    def run(step):
        try:
            for i in range(rounds):
                step(i)
        except Exception as exc:  # surfaced below: a thread's error must fail the test
            failures.append(exc)

    writers = [
        lambda i: engine.qdrant.update(QdrantSettingsUpdate(enabled=False)),
        lambda i: engine.settings.update(MemorySettingsUpdate(max_tokens=100 + i)),
        lambda i: engine.settings.get() and engine.settings.invalidate(),
    ]
    threads = [threading.Thread(target=run, args=(w,), daemon=True) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not [t for t in threads if t.is_alive()], "settings writers deadlocked"
    assert failures == []
    assert engine.settings.get().max_tokens == 100 + rounds - 1
    assert engine.settings.get().vector_store == "auto"


class CommitRace:
    """Against a server, a read in another stream does not wait for a write: it sees the
    committed row until COMMIT lands. This plays that order on two real connections: the
    store writes in ``writer``'s transactions, reads through a second connection
    (committed rows only), and ``before_commit`` runs just before the writer commits."""

    def __init__(self, writer):
        self.writer = writer
        self.before_commit = lambda: None

    def transaction(self):
        race = self

        class _Tx:
            def __enter__(self):
                self.tx = race.writer.transaction()
                return self.tx.__enter__()

            def __exit__(self, *exc):
                if exc[0] is None:
                    race.before_commit()
                return self.tx.__exit__(*exc)

        return _Tx()


def test_a_read_during_the_commit_does_not_leave_the_old_value_cached(engine, db):
    writes = SettingsDocumentsRepository(engine.memories.uow, SEALER)
    reads = SettingsDocumentsRepository(db, SEALER)
    race = CommitRace(engine.memories.uow)

    class Documents:
        load = reads.load
        save = writes.save

    store = SettingsStore(Documents(), race, lambda: 2, ttl_s=60)
    assert store.get().max_tokens != 123
    race.before_commit = store.get  # reads the old row, after the write dropped the cache
    store.update(MemorySettingsUpdate(max_tokens=123))
    race.before_commit = lambda: None
    assert store.get().max_tokens == 123
