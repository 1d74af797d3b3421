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
