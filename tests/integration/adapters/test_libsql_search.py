"""The libSQL search repository: its query plans and its pruning of common terms."""

from importlib import resources

import pytest
from cachetools import TTLCache

from engram.adapters.libsql import MemoryRepository, SearchRepository
from engram.adapters.libsql.profile import PROFILE_SQL, all_profile_sql
from engram.domain.models import MemoryCreate, MemoryQuery, MemorySettingsUpdate, OwnerFilter


def add(engine, content, owner="k1", **kw):
    return engine.memories.create(MemoryCreate(api_key_id=owner, content=content, **kw))


@pytest.fixture
def search(db):
    return SearchRepository(db)


def all_sql(db, action):
    """Every statement ``action`` runs on ``db`` through ``query``, with its parameters."""
    captured = []
    query = db.query

    def spy(sql, params=()):
        captured.append((sql, list(params)))
        return query(sql, params)

    db.query = spy
    try:
        action()
    finally:
        db.query = query
    return captured


def first_sql(db, action):
    """The first statement ``action`` runs on ``db``, with its parameters."""
    return all_sql(db, action)[0]


def plan_of(db, sql, params):
    return [row["detail"] for row in db.query("EXPLAIN QUERY PLAN " + sql, params)]


def test_keyword_search_drives_from_the_fts_index(search, db):
    """The plan, not the clock: the FTS scan must be the outer loop of the join.

    With the owner index outside, the full-text query runs once per memory of the
    key (seconds at 10k memories); see bench/engine_bench.py.
    """
    sql, params = first_sql(db, lambda: search.keyword_search("x", OwnerFilter(("k1",)), 1, 0, 20))
    plan = plan_of(db, sql, params)
    assert plan[0].startswith("SCAN memory_fts VIRTUAL TABLE"), plan
    assert "INTEGER PRIMARY KEY" in plan[1], plan


def test_terms_in_half_the_memories_are_not_searched(engine, search):
    for i in range(10):
        add(engine, f"Caroline mentioned item{i}", key=f"k{i}")
    add(engine, "Caroline adopted a kitten", key="cat")
    assert search.selective_terms(["caroline", "kitten"]) == ["kitten"]
    assert search.selective_terms(["caroline"]) == ["caroline"]  # never empties the query
    assert search.selective_terms(["carolines", "item3"]) == ["item3"]  # stems are compared
    assert search.selective_terms(["unseen", "kitten"]) == ["unseen", "kitten"]


def test_pruning_common_terms_keeps_the_ranking(engine, db, search):
    engine.settings.update(MemorySettingsUpdate(static_enabled=False))
    for i in range(12):
        add(engine, f"Melanie talked about pottery class {i}", key=f"p{i}")
    add(engine, "Melanie went camping with family", key="camp")
    add(engine, "Melanie camping camping by the lake", key="lake")
    who = OwnerFilter(("k1",))
    pruned = search.keyword_search("Melanie camping", who, 10**13, 0, 20)
    full = SearchRepository(db, prune=False).keyword_search("Melanie camping", who, 10**13, 0, 20)
    assert len(full) == 14 and len(pruned) == 2
    matched = [m.content for m, _ in full if "camping" in m.content]
    assert [m.content for m, _ in pruned] == matched  # same order for each rare-term match


def test_loading_memories_by_id_drives_from_the_id_index(engine, db, search):
    for i in range(50):
        add(engine, f"fact {i}", key=f"k{i}")
    ids = [m.id for m in engine.memories.list_page(MemoryQuery(limit=10)).data]
    found = []
    sql, params = first_sql(
        db,
        lambda: found.extend(search.get_many(ids, OwnerFilter(("k1",)), engine.now_ms(), 0)),
    )
    assert {m.id for m in found} == set(ids)
    plan = plan_of(db, sql, params)
    assert "(id=?)" in plan[0], plan


def batch_sql(db, action):
    """The statements ``action`` sends to ``db`` in one batch."""
    captured = []
    query_batch = db.query_batch

    def spy(statements):
        captured.extend(statements)
        return query_batch(statements)

    db.query_batch = spy
    try:
        action()
    finally:
        db.query_batch = query_batch
    return captured


def test_the_profile_is_read_from_its_partial_index(search, db):
    """The plan, not the clock: without the partial index every retrieval walks all of
    the owner's rows looking for profile memories (~20 ms at 10,000 memories). A
    session's retrieval walks only the session's rows (its own index)."""
    who = OwnerFilter(("k1",))
    alone = first_sql(db, lambda: search.profile(who, 1, 0, 10))
    batched = batch_sql(db, lambda: search.get_many_with_context([], who, 1, 0, 10, 10))
    for sql, params in (alone, batched[0], all_profile_sql(who, 1)):
        assert PROFILE_SQL in sql
        assert "memories_owner_profile" in " ".join(plan_of(db, sql, params))


def test_the_profile_index_states_the_profile_rule():
    """The migration repeats the query's condition word for word (the planner's rule);
    a category added to the profile without a new migration fails here."""
    migration = resources.files("engram.adapters.libsql.migrations").joinpath(
        "0007_profile_index.sql"
    )
    assert PROFILE_SQL.replace("m.metadata", "metadata") in migration.read_text()


def test_the_profile_read_is_the_profile_rule(engine, search):
    """What the SQL reads as the profile is what ``Memory.profile`` (models/profile.py)
    says, for metadata of every shape a caller may send."""
    shapes = [
        {"category": "health"},
        {"category": "instruction"},
        {"category": "event"},
        {"category": "home", "pinned": False},
        {"category": "event", "pinned": True},
        {"pinned": 1},
        {"pinned": "true"},
        {"category": "family", "source": "assistant"},
        {"category": "family", "source": "assistant", "pinned": True},
        {"category": ["health"]},
        {"category": "Health"},
        {"category": "pet", "when": "2026-11-21"},
        {"category": "pet", "when": None},
        {"category": "pet", "when": "2026-11-21", "pinned": True},
        {},
    ]
    made = [add(engine, f"memory number {i}", metadata=m) for i, m in enumerate(shapes)]
    read = {m.id for m in search.profile(OwnerFilter(("k1",)), engine.now_ms(), 0, 50)}
    assert read == {m.id for m in made if m.profile}
    assert len(read) == 5


def test_the_recent_read_ahead_is_the_recent_read(engine, search, clock):
    """Read with the ranking's rows (and made memories only when looked at), the recent
    memories are those ``recent`` returns, newest first, another owner's left out."""
    for i in range(8):
        add(engine, f"fact {i}", key=f"k{i}")
        add(engine, f"someone else's fact {i}", owner="k2", key=f"k{i}")
        clock.advance(seconds=1)
    who, now = OwnerFilter(("k1",)), engine.now_ms()
    rows = search.get_many_with_context([], who, now, 0, 5, 10)
    expected = search.recent(who, now, 0, 5)
    assert len(rows.recent) == 5
    assert [m.content for m in rows.recent[:3]] == [m.content for m in expected[:3]]
    assert [m.id for m in rows.recent] == [m.id for m in expected]
    assert [m.content for m in expected] == [f"fact {i}" for i in (7, 6, 5, 4, 3)]


def test_newest_first_reads_need_no_sort(engine, db, search):
    """The plan, not the clock: an index declared ``updated_at DESC`` makes SQLite sort
    every tie on the rowid in a temporary B-tree, and an import gives thousands of rows
    one timestamp. Read backwards, an ascending index is already in order."""
    who = OwnerFilter(("k1",))
    reads = [
        first_sql(db, lambda: search.recent(who, 1, 0, 20)),
        first_sql(db, lambda: search.profile(who, 1, 0, 10)),
        all_profile_sql(who, 1),
        *batch_sql(db, lambda: search.get_many_with_context([], who, 1, 0, 20, 10)),
    ]
    for sql, params in reads:
        assert "ORDER BY m.updated_at DESC, m.seq DESC" in sql
        assert not any("TEMP B-TREE" in step for step in plan_of(db, sql, params)), sql
    store = MemoryRepository(db)
    listed = all_sql(db, lambda: store.list_page(MemoryQuery(api_key_id="k1", limit=10), 1))
    sql, params = next((s, p) for s, p in listed if "ORDER BY" in s)
    assert "ORDER BY m.created_at DESC, m.seq DESC" in sql
    assert not any("TEMP B-TREE" in step for step in plan_of(db, sql, params)), sql


def test_ranked_rows_read_by_seq_are_the_owners_alone(engine, db, search):
    """Rows named by their seq (what the vector index knows) are read through the
    primary key, and the owner condition still decides: another key's seq reads
    nothing. Rows named by id and by seq come back together."""
    mine = [add(engine, f"fact {i}", key=f"k{i}") for i in range(3)]
    theirs = add(engine, "someone else's fact", owner="k2", key="k0")
    seqs = {row["id"]: row["seq"] for row in db.query("SELECT id, seq FROM memories", ())}
    who, now = OwnerFilter(("k1",)), engine.now_ms()
    rows = search.get_many_with_context(
        [mine[0].id], who, now, 0, 5, 10, seqs=[seqs[mine[1].id], seqs[theirs.id]]
    )
    assert sorted(m.id for m in rows.memories) == sorted([mine[0].id, mine[1].id])
    by_seq = batch_sql(
        db, lambda: search.get_many_with_context([], who, now, 0, 5, 10, seqs=[seqs[mine[2].id]])
    )[-1]
    assert "m.seq IN" in by_seq[0]
    assert "INTEGER PRIMARY KEY" in " ".join(plan_of(db, *by_seq))


def test_the_row_count_is_not_read_again_with_each_new_word(engine, search, db):
    """The pruning's row count is cached with the document frequencies; a server gets it
    with the words' frequencies in the same round trip, a file pays a statement for it,
    so a file reads it only when its cached value expired."""
    if db.is_remote:
        pytest.skip("a server gets the count in the same round trip as the frequencies")
    add(engine, "Caroline adopted a kitten", key="cat")
    who = OwnerFilter(("k1",))
    first = [sql for sql, _ in all_sql(db, lambda: search.keyword_scores("kitten hat", who, 5))]
    again = all_sql(db, lambda: search.keyword_scores("adopted scarf", who, 5))
    counted = [sql for sql, _ in again if "max(seq)" in sql]
    assert any("max(seq)" in sql for sql in first)
    assert any("memory_fts_vocab" in sql for sql, _ in again)  # the new words' frequencies
    assert counted == []


def test_the_row_count_is_read_again_once_expired_though_new_words_keep_coming(engine, db):
    """Setting the cached count again with each batch of new words would restart its
    five minutes: the count read first would stay for good, and a term that has become
    selective as the file grew would be pruned."""
    search = SearchRepository(db)
    now = [0.0]
    search._doc_freq = TTLCache(maxsize=8192, ttl=300, timer=lambda: now[0])
    for i in range(4):
        add(engine, f"Note {i}", key=f"n{i}")
    search.selective_terms(["note", "zzz"])  # the count read: 4 rows
    for i in range(40):
        add(engine, f"Something else entirely {i}", key=f"m{i}")
    for i in range(3):
        add(engine, f"Caroline adopted pet {i}", key=f"c{i}")  # 3 of 47 rows
    reads = 0
    for minute in range(1, 31):  # a new word every minute for half an hour
        now[0] = minute * 60.0
        sent = all_sql(db, lambda m=minute: search.selective_terms(["note", f"word{m}"]))
        reads += sum("max(seq)" in sql for sql, _ in sent)
    assert reads >= 5 or db.is_remote
    assert "caroline" in search.selective_terms(["caroline", "kitten"])
