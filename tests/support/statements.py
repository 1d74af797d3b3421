"""What the engine sends to its database, and waiting for its background keyword build."""

from contextlib import contextmanager


@contextmanager
def _calls(db):
    """Each call the block makes through ``db`` (the engine's own connection), as (kind,
    its SQL): "query" for a statement or a batch, "execute", "commit" for a transaction.
    A file's batch runs its statements through ``query``: recorded once."""
    calls = []
    query, batch, execute, transaction = db.query, db.query_batch, db.execute, db.transaction
    executemany = db.executemany
    batching = []

    def one(sql, params=()):
        if not batching:
            calls.append(("query", [sql]))
        return query(sql, params)

    def many(items):
        calls.append(("query", [sql for sql, _ in items]))
        batching.append(True)
        try:
            return batch(items)
        finally:
            batching.pop()

    def run(sql, params=()):
        calls.append(("execute", [sql]))
        return execute(sql, params)

    def run_many(sql, rows):
        calls.append(("execute", [sql]))  # one pipeline: one round trip to a server
        return executemany(sql, rows)

    def commit():
        calls.append(("commit", []))  # BEGIN travels with the first statement, COMMIT alone
        return transaction()

    db.query, db.query_batch, db.execute, db.transaction = one, many, run, commit
    db.executemany = run_many
    try:
        yield calls
    finally:
        db.query, db.query_batch, db.execute, db.transaction = query, batch, execute, transaction
        db.executemany = executemany


def statements(db, action):
    """The SQL reads ``action`` sends through ``db``, one by one or batched."""
    with _calls(db) as calls:
        action()
    return [sql for kind, sent in calls if kind == "query" for sql in sent]


def round_trips(db, action):
    """The round trips ``action`` costs the engine's own connection: a server's own count
    of its HTTP requests; for a file, what would be one (a statement, a batch, a
    transaction's COMMIT)."""
    if db.is_remote:
        before = db._conn.round_trips
        action()
        return db._conn.round_trips - before
    with _calls(db) as calls:
        action()
    return len(calls)


def wait_for_postings(engine, owner="k1"):
    keywords = engine.retrieval.search.keywords
    if keywords is not None:
        assert keywords.wait_built(owner, 10), "the keyword postings were never built"
