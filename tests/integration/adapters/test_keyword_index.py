"""The in-memory keyword postings (adapters/libsql/keyword_index.py) against FTS5 itself.

FTS5 is the oracle: for the same database, the postings must give the same rows, in
the same order, with the same BM25, after any mix of writes, however they reach the
file (this process, another connection, a neighbour's context rewritten, a deletion,
a vector reset). Every comparison asks a fresh ``SearchRepository`` (fresh document
frequencies) sharing one long-lived ``KeywordIndexCache`` (the postings under test).
"""

import math
import random
from datetime import timedelta

import pytest

from engram.adapters.libsql import Database, KeywordIndexCache, SearchRepository
from engram.adapters.libsql.fts import query_terms
from engram.adapters.libsql.fts5_tokens import Fts5Tokenizer, Tokens
from engram.adapters.libsql.postings import OwnerKeywords, Query
from engram.domain.models import MemoryCreate, MemoryUpdate, OwnerFilter, RetrievalRequest, Strategy

WORDS = (
    "camping lake pottery painting kitten adopted sweden moved concert violin guitar "
    "marathon running runner runs hiking mountains sunset beach paris berlin tokyo "
    "support group charity book novel reading coffee garden roses dinner family"
).split()
QUERIES = [
    "camping by the lake",
    "running marathon",
    "who adopted a kitten",
    "moved from sweden",
    "violin concert in berlin",
    "reading a novel in the garden",
    "family dinner",
    "roses",
    "Tokyo sunset hiking mountains beach",
]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9)))


def rounded(found):
    """Scores rounded past float noise (summation order), order kept."""
    return [(seq, round(score, 9)) for seq, score in found]


def assert_same_as_fts5(db, cache, owners=("k1", "k2")):
    checked = 0
    for owner in owners:
        who = OwnerFilter((owner,))
        for query in QUERIES:
            expected = SearchRepository(db).keyword_scores(query, who, 200)
            indexed = SearchRepository(db, keywords=cache)
            got = indexed.keyword_scores(query, who, 200)
            assert rounded(got) == rounded(expected), (owner, query)
            checked += len(expected)
    assert cache.ready(owners[0])
    return checked


def test_ranks_exactly_as_fts5_through_any_mix_of_writes(engine, db):
    """Creates, edits (content and key), deletions and session neighbours (whose
    contexts the engine rewrites), for two owners, checked every few writes."""
    cache = KeywordIndexCache(64 << 20, background=False)
    rng = random.Random(16)
    live: dict[str, str] = {}  # id -> owner
    checked = 0
    for step in range(120):
        action = rng.random()
        if action < 0.6 or len(live) < 5:
            owner = rng.choice(("k1", "k1", "k2"))
            memory = engine.memories.create(
                MemoryCreate(
                    api_key_id=owner,
                    key=f"m{step}",
                    content=sentence(rng),
                    session_id=rng.choice((None, "s1", "s2")),
                )
            )
            live[memory.id] = owner
        elif action < 0.8:
            memory_id = rng.choice(sorted(live))
            change = (
                MemoryUpdate(content=sentence(rng))
                if rng.random() < 0.7
                else MemoryUpdate(key=f"k:{step}")
            )
            engine.memories.update(memory_id, change)
        else:
            memory_id = rng.choice(sorted(live))
            engine.memories.delete(memory_id)
            del live[memory_id]
        if step % 6 == 5:
            checked += assert_same_as_fts5(db, cache)
    assert checked > 500  # the comparisons were not vacuous


def test_a_write_through_another_connection_is_seen_by_the_next_query(engine, db, config):
    """The postings live in the process that reads (``db`` here); the engine's writes
    come through another connection, as another Lambda instance's would."""
    cache = KeywordIndexCache(64 << 20, background=False)
    who = OwnerFilter(("k1",))
    engine.memories.create(MemoryCreate(api_key_id="k1", content="pottery class on Monday"))
    search = SearchRepository(db, keywords=cache)
    assert search.keyword_scores("violin", who, 10) == []
    created = engine.memories.create(MemoryCreate(api_key_id="k1", content="violin lessons"))
    seqs = [
        seq for seq, _ in SearchRepository(db, keywords=cache).keyword_scores("violin", who, 10)
    ]
    assert len(seqs) == 1
    engine.memories.delete(created.id)
    assert SearchRepository(db, keywords=cache).keyword_scores("violin", who, 10) == []


def test_a_neighbours_rewritten_context_is_found(engine, db):
    """A memory written into a session changes its neighbours' contexts (their searchable
    surroundings): the postings must follow, or a query by a neighbour's word finds less
    than FTS5."""
    cache = KeywordIndexCache(64 << 20, background=False)
    who = OwnerFilter(("k1",))
    for text in ("we talked about the trip", "it was lovely", "see you soon"):
        engine.memories.create(MemoryCreate(api_key_id="k1", content=text, session_id="s"))
    assert SearchRepository(db, keywords=cache).keyword_scores("Sweden", who, 10) == []
    engine.memories.create(
        MemoryCreate(api_key_id="k1", content="She moved from Sweden", session_id="s")
    )
    got = SearchRepository(db, keywords=cache).keyword_scores("Sweden", who, 10)
    expected = SearchRepository(db).keyword_scores("Sweden", who, 10)
    assert len(got) == 3  # the new row and the two before it, through their context
    assert rounded(got) == rounded(expected)


def test_owners_never_see_each_others_rows(engine, db):
    cache = KeywordIndexCache(64 << 20, background=False)
    mine = engine.memories.create(MemoryCreate(api_key_id="k1", content="my violin"))
    engine.memories.create(MemoryCreate(api_key_id="k2", content="their violin, violin"))
    seq_of_mine = db.scalar("SELECT seq FROM memories WHERE id = ?", (mine.id,))
    search = SearchRepository(db, keywords=cache)
    assert [s for s, _ in search.keyword_scores("violin", OwnerFilter(("k1",)), 10)] == [
        seq_of_mine
    ]
    assert [s for s, _ in search.keyword_scores("violin", OwnerFilter(("k3",)), 10)] == []


def test_a_mass_change_rebuilds_and_fts5_answers_meanwhile(engine, db):
    """A vector reset stamps every row: re-tokenizing them all on a query would stall it,
    so the postings are dropped and rebuilt, FTS5 answering the query in between."""
    cache = KeywordIndexCache(64 << 20, background=False)
    rng = random.Random(3)
    engine.memories.upsert_many(
        [MemoryCreate(api_key_id="k1", key=f"m{i}", content=sentence(rng)) for i in range(600)]
    )
    assert_same_as_fts5(db, cache, owners=("k1",))
    db.execute("UPDATE owner_versions SET version = version + 1")
    db.execute("UPDATE memories SET version = (SELECT version FROM owner_versions)")
    assert_same_as_fts5(db, cache, owners=("k1",))


def test_folding_the_delta_keeps_the_answer(engine, db):
    """Past a tenth of the rows (or 256) in the delta and the dead, the arrays are rebuilt
    without the dead; answers before and after must both match FTS5."""
    cache = KeywordIndexCache(64 << 20, background=False)
    rng = random.Random(5)
    made = engine.memories.upsert_many(
        [MemoryCreate(api_key_id="k1", key=f"m{i}", content=sentence(rng)) for i in range(300)]
    )
    assert_same_as_fts5(db, cache, owners=("k1",))
    ids = [outcome.memory.id for outcome in made]
    for memory_id in ids[:200]:  # 200 dead: no fold yet
        engine.memories.delete(memory_id)
    assert_same_as_fts5(db, cache, owners=("k1",))
    for i in range(80):  # 200 dead + 80 new rows: folded
        engine.memories.create(MemoryCreate(api_key_id="k1", key=f"n{i}", content=sentence(rng)))
    assert_same_as_fts5(db, cache, owners=("k1",))


def test_the_vocabulary_holds_only_live_rows_words():
    """Words of rows rewritten away leave the vocabulary at the next fold, and of rows
    deleted at once: an owner who edits for months does not grow it without bound."""

    def tokens(rows):
        found = Tokens(lengths={seq: len(words) for seq, words in rows.items()})
        for seq, words in rows.items():
            for word in words:
                found.stems.append(word)
                found.seqs.append(seq)
                found.weights.append(1.0)
        return found

    index = OwnerKeywords.build("k1", 1, [tokens({seq: ["base", f"w{seq}"] for seq in range(300)})])
    for n in range(300):  # every row rewritten once with a new word: folded on the way
        index.apply(tokens({n: ["base", f"v{n}"]}), [])
    assert not {f"w{n}" for n in range(200)} & set(index._vocab)  # folded twice
    index.apply(Tokens(), [0, 1])  # two deleted
    assert set(index._vocab) == {"base"} | {f"v{n}" for n in range(2, 300)}
    query = Query(["v5", "w5"], {"v5": 1, "w5": 1}, rows=300, avgdl=2.0)
    assert [seq for seq, _ in index.search(query, 10)] == [5]


def test_the_build_runs_in_the_background_and_fts5_answers_meanwhile(engine, db):
    cache = KeywordIndexCache(64 << 20)  # background, as deployed
    rng = random.Random(9)
    engine.memories.upsert_many(
        [MemoryCreate(api_key_id="k1", key=f"m{i}", content=sentence(rng)) for i in range(200)]
    )
    who = OwnerFilter(("k1",))
    first = SearchRepository(db, keywords=cache).keyword_scores("camping lake", who, 50)
    assert first == SearchRepository(db).keyword_scores("camping lake", who, 50)
    assert cache.wait_built("k1", 30), "the background build never finished"
    assert_same_as_fts5(db, cache, owners=("k1",))


def test_evicted_postings_are_rebuilt_and_still_right(engine, db):
    cache = KeywordIndexCache(1, background=False)  # room for one owner only
    engine.memories.create(MemoryCreate(api_key_id="k1", content="violin concert"))
    engine.memories.create(MemoryCreate(api_key_id="k2", content="violin practice"))
    assert_same_as_fts5(db, cache, owners=("k1",))
    assert_same_as_fts5(db, cache, owners=("k2",))
    assert cache.ready("k2") and not cache.ready("k1")
    assert_same_as_fts5(db, cache, owners=("k1",))


def test_a_failed_build_leaves_fts5_answering(engine, db, caplog):
    cache = KeywordIndexCache(64 << 20, background=False)
    engine.memories.create(MemoryCreate(api_key_id="k1", content="violin concert"))
    broken = SearchRepository(db, keywords=cache)
    query = db.query

    def failing(sql, params=()):
        if "ORDER BY seq LIMIT" in sql:
            raise ValueError("disk on fire")
        return query(sql, params)

    db.query = failing
    db.sibling = lambda: db  # the build reads through this failing connection
    try:
        got = broken.keyword_scores("violin", OwnerFilter(("k1",)), 10)
    finally:
        db.query = query
        del db.sibling
    assert got == SearchRepository(db).keyword_scores("violin", OwnerFilter(("k1",)), 10)
    assert len(got) == 1 and not cache.ready("k1")
    assert "keyword postings of an owner not built" in caplog.text


def test_the_tokenizer_serves_call_after_call_and_keeps_nothing():
    """One tokenizer serves every refresh of its thread: each call's answer is what a fresh
    tokenizer gives, and nothing of the rows it saw stays in its private table (a memory
    forgotten since must not linger there, in the segments FTS5 merges lazily)."""
    first = [
        {
            "seq": 7,
            "key": "a",
            "content": "zanzibarite vault code",
            "context": "",
            "owner_token": "o1",
        }
    ]
    second = [
        {
            "seq": 7,
            "key": "b",
            "content": "violin lessons",
            "context": "camping",
            "owner_token": "o1",
        },
        {"seq": 8, "key": "c", "content": "violin violin", "context": "", "owner_token": "o1"},
    ]
    tokenizer = Fts5Tokenizer()
    tokenizer.documents(first)
    again = tokenizer.documents(second)
    fresh = Fts5Tokenizer().documents(second)
    assert again.lengths == fresh.lengths == {7: 5, 8: 4}
    assert sorted(zip(again.stems, again.seqs, again.weights, strict=True)) == sorted(
        zip(fresh.stems, fresh.seqs, fresh.weights, strict=True)
    )
    conn = tokenizer._conn
    assert conn.execute("SELECT count(*) FROM d").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM dv").fetchone()[0] == 0
    blocks = b"".join(bytes(r[0]) for r in conn.execute("SELECT block FROM d_data").fetchall())
    assert b"zanzibarit" not in blocks and b"violin" not in blocks


def test_a_query_word_fts5_splits_is_left_to_fts5():
    """A word the engine's splitter keeps whole but FTS5 cuts in two would be a phrase
    (adjacent tokens) for FTS5: the postings do not try to imitate that."""
    cache = KeywordIndexCache(1 << 20)
    assert cache.stems(["running", "camping"]) == ["run", "camp"]
    assert cache.stems(["a\u00b7b"]) is None  # U+00B7 separates tokens in unicode61


def test_postings_of_one_owner_score_as_bm25_by_hand():
    """The arithmetic itself, on two rows small enough to check on paper."""
    tokens = Fts5Tokenizer().documents(
        [
            {"seq": 1, "key": "a", "content": "violin violin", "context": "", "owner_token": "o1"},
            {"seq": 2, "key": "b", "content": "violin lessons", "context": "", "owner_token": "o1"},
        ]
    )
    assert tokens.lengths == {1: 4, 2: 4}
    index = OwnerKeywords.build("k1", 1, [tokens])
    found = index.search(Query(["violin"], {"violin": 2}, rows=10, avgdl=4.0), 10)
    idf = math.log((10 - 2 + 0.5) / (2 + 0.5))
    expected = [(1, -idf * 2 * 2.2 / (2 + 1.2)), (2, -idf * 1 * 2.2 / (1 + 1.2))]
    assert [s for s, _ in found] == [1, 2]
    assert found == pytest.approx(expected)


def test_a_query_for_the_owner_token_itself_matches_as_fts5(engine, db):
    """FTS5 matches a query word in any column, the owner token's included (weight 0):
    asked for the token's own text, every row of the owner matches with score 0."""
    cache = KeywordIndexCache(64 << 20, background=False)
    for i in range(3):
        engine.memories.create(MemoryCreate(api_key_id="k1", key=f"m{i}", content=f"note {i}"))
    token = "o" + b"k1".hex() + "0"
    who = OwnerFilter(("k1",))
    expected = SearchRepository(db).keyword_scores(token, who, 10)
    assert len(expected) == 3
    assert rounded(SearchRepository(db, keywords=cache).keyword_scores(token, who, 10)) == (
        rounded(expected)
    )


def test_keyword_search_as_fts5_with_expiry_retention_and_a_narrow_window(engine, db, clock):
    """The exact strategy's ``keyword_search`` from the postings: expiry and retention are
    conditions the postings do not know, applied to the rows read by seq; when they leave
    too few rows to fill the page, FTS5 answers, and the answer is FTS5's either way."""
    rng = random.Random(26)
    start = int(clock.now.timestamp() * 1000)
    for n in range(400):
        expires = clock.now + timedelta(minutes=rng.randint(1, 60)) if n % 4 == 0 else None
        engine.memories.create(
            MemoryCreate(api_key_id="k1", content=sentence(rng), expires_at=expires)
        )
        clock.advance(seconds=1)
    engine.memories.create(MemoryCreate(api_key_id="k2", content="camping by the lake"))
    later = start + 30 * 60_000  # a quarter of the rows have expired by then
    cache = KeywordIndexCache(64 << 20, background=False)
    who = OwnerFilter(("k1",))
    compared = 0
    for now_ms, cutoff_ms, limit, fallbacks in [
        (start, 0, 20, False),
        (later, 0, 20, False),
        (later, start + 200_000, 50, False),  # retention keeps the newer half
        (later, start + 395_000, 10, True),  # five rows in the window: FTS5 answers
    ]:
        fell_back = []
        for query in QUERIES:
            search = SearchRepository(db, keywords=cache)
            terms = search.selective_terms(query_terms(query))
            answer = search._indexed_search(cache, terms, who, now_ms, cutoff_ms, limit)
            if answer is None:
                fell_back.append(query)
            expected = SearchRepository(db).keyword_search(query, who, now_ms, cutoff_ms, limit)
            got = SearchRepository(db, keywords=cache).keyword_search(
                query, who, now_ms, cutoff_ms, limit
            )
            assert [(m.id, round(s, 9)) for m, s in got] == [
                (m.id, round(s, 9)) for m, s in expected
            ], (now_ms, cutoff_ms, limit, query)
            assert all(m.api_key_id == "k1" for m, _ in got)
            compared += len(expected)
        assert bool(fell_back) is fallbacks, (cutoff_ms, fell_back)
    assert compared > 500


def test_the_build_reads_through_a_connection_of_its_own(engine, db):
    """A build's pages never queue behind (or hold up) the requests' connection: the
    sibling is another connection to the same rows, closed by its owner alone."""
    engine.memories.create(MemoryCreate(api_key_id="k1", content="violin concert"))
    sibling = db.sibling()
    try:
        assert sibling is not db
        assert sibling.scalar("SELECT count(*) FROM memories WHERE api_key_id = 'k1'") == 1
    finally:
        sibling.close()
    assert db.scalar("SELECT count(*) FROM memories WHERE api_key_id = 'k1'") == 1
    memory = Database(":memory:")
    assert memory.sibling() is memory  # another connection would see another database
    memory.close()


def test_frequencies_cached_before_deletions_never_exceed_the_rows(engine, db, caplog):
    """A document frequency read before rows were deleted can be larger than the rows
    left (FTS5's own is never): the IDF must not take the log of a negative number."""
    cache = KeywordIndexCache(64 << 20, background=False)
    search = SearchRepository(db, keywords=cache)  # long-lived, its frequencies cached
    who = OwnerFilter(("k1",))
    made = [
        engine.memories.create(MemoryCreate(api_key_id="k1", key=f"m{i}", content="violin"))
        for i in range(4)
    ]
    assert len(search.keyword_scores("violin", who, 10)) == 4
    for memory in made[:3]:
        engine.memories.delete(memory.id)
    got = search.keyword_scores("violin", who, 10)
    assert [seq for seq, _ in got] == [
        seq for seq, _ in SearchRepository(db).keyword_scores("violin", who, 10)
    ]
    assert len(got) == 1
    assert "keyword postings failed" not in caplog.text  # the postings answered


def test_equal_scores_stay_equal_as_in_fts5(db):
    """FTS5 computes idf * (a / b): the same inputs in another order can differ in the
    last bit and reorder rows FTS5 scores equal (and ranks by rowid)."""

    def put(seq, owner, key, content, context=""):
        db.execute(
            "INSERT INTO memories (seq, id, api_key_id, type, key, content, created_at,"
            " updated_at, context, version) VALUES (?,?,?,'factual',?,?,0,0,?,1)",
            (seq, f"id{seq}", owner, key, content, context),
        )

    db.execute("INSERT INTO owner_versions VALUES ('k1', 1)")
    put(1, "k1", "x", "zeta")  # tf 1, length 3
    put(2, "k1", "y", "zeta zeta aa bb cc dd ee ff gg", "zeta zeta")  # tf 3, length 13
    for seq in range(3, 7):
        put(seq, "k2", f"f{seq}", "one two three")
    cache = KeywordIndexCache(64 << 20, background=False)
    who = OwnerFilter(("k1",))
    expected = SearchRepository(db).keyword_scores("zeta", who, 10)
    assert expected[0][1] == expected[1][1]  # the case: FTS5 scores both rows equal
    assert SearchRepository(db, keywords=cache).keyword_scores("zeta", who, 10) == expected


def test_a_defect_in_the_postings_costs_speed_not_the_answer(engine, db, caplog):
    cache = KeywordIndexCache(64 << 20, background=False)
    engine.memories.create(MemoryCreate(api_key_id="k1", content="violin concert"))
    who = OwnerFilter(("k1",))
    SearchRepository(db, keywords=cache).keyword_scores("violin", who, 10)  # built
    assert cache.ready("k1")

    def broken(*args, **kwargs):
        raise IndexError("a defect")

    cache.search = broken
    got = SearchRepository(db, keywords=cache).keyword_scores("violin", who, 10)
    assert got == SearchRepository(db).keyword_scores("violin", who, 10) and len(got) == 1
    assert "keyword postings failed, FTS5 answers: IndexError" in caplog.text


def test_postings_idle_for_a_day_are_rebuilt_not_refreshed(engine, db):
    """Tombstones are kept 15 days: postings idle long enough could miss a deletion's,
    so past a day without a query they are rebuilt from the rows."""
    cache = KeywordIndexCache(64 << 20, background=False)
    who = OwnerFilter(("k1",))
    engine.memories.create(MemoryCreate(api_key_id="k1", content="violin concert"))
    SearchRepository(db, keywords=cache).keyword_scores("violin", who, 10)
    before = cache._indexes["k1"]
    SearchRepository(db, keywords=cache).keyword_scores("violin", who, 10)
    assert cache._indexes["k1"] is before  # used within the day: kept
    before.used -= 2 * 86_400
    got = SearchRepository(db, keywords=cache).keyword_scores("violin", who, 10)
    assert got == SearchRepository(db).keyword_scores("violin", who, 10)
    assert cache._indexes["k1"] is not before


def test_the_setting_sizes_the_postings_and_0_turns_them_off(config, clock):
    from engram import open_engine

    engine = open_engine(config.model_copy(update={"keyword_cache_mb": 3}), clock=clock)
    try:
        assert engine.retrieval.search.keywords.max_bytes == 3 * 1024 * 1024
    finally:
        engine.close()
    engine = open_engine(config.model_copy(update={"keyword_cache_mb": 0}), clock=clock)
    try:
        assert engine.retrieval.search.keywords is None  # FTS5 scores every query
        engine.memories.create(MemoryCreate(api_key_id="k1", content="violin concert"))
        request = RetrievalRequest(query="violin", strategy=Strategy.SEMANTIC)
        assert len(engine.retrieval.preview("k1", request).results) == 1
    finally:
        engine.close()
