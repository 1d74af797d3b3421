"""What the engine sends to its database, and waiting for its background keyword build."""

import time


def statements(db, action):
    """The SQL ``action`` sends through ``db`` (the engine's own connection), one by one
    or batched."""
    sent = []
    query, batch = db.query, db.query_batch
    batching = []  # a file's batch runs its statements through ``query``: counted once

    def one(sql, params=()):
        if not batching:
            sent.append(sql)
        return query(sql, params)

    def many(items):
        sent.extend(sql for sql, _ in items)
        batching.append(True)
        try:
            return batch(items)
        finally:
            batching.pop()

    db.query, db.query_batch = one, many
    try:
        action()
    finally:
        db.query, db.query_batch = query, batch
    return sent


def wait_for_postings(engine, owner="k1"):
    keywords = engine.retrieval.search.keywords
    deadline = time.monotonic() + 10
    while keywords is not None and not keywords.ready(owner):
        assert time.monotonic() < deadline, "the keyword postings were never built"
        time.sleep(0.02)


def round_trips(db, action):
    """The round trips ``action`` costs the engine's own connection: a server's own count
    of its HTTP requests; for a file, what would be one (a statement, a batch, a
    transaction's COMMIT)."""
    conn = db._conn
    if db.is_remote:
        before = conn.round_trips
        action()
        return conn.round_trips - before
    count = 0
    query, batch, execute, transaction = db.query, db.query_batch, db.execute, db.transaction
    batching = []

    def one(sql, params=()):
        nonlocal count
        count += not batching
        return query(sql, params)

    def many(items):
        nonlocal count
        count += 1
        batching.append(True)
        try:
            return batch(items)
        finally:
            batching.pop()

    def run(sql, params=()):
        nonlocal count
        count += 1
        return execute(sql, params)

    def commit():
        nonlocal count
        count += 1  # BEGIN travels with the first statement, COMMIT alone
        return transaction()

    db.query, db.query_batch, db.execute, db.transaction = one, many, run, commit
    try:
        action()
    finally:
        db.query, db.query_batch, db.execute, db.transaction = query, batch, execute, transaction
    return count
