import time
from datetime import timedelta

import numpy as np
import pytest

from engram import Config, InvalidInputError, MemorySettingsUpdate, StorageError, open_engine
from engram.adapters.libsql import SearchRepository
from engram.domain.models import (
    GLOBAL_OWNER,
    MemoryCreate,
    MemoryQuery,
    RetrievalRequest,
    Scope,
    Strategy,
)
from engram.ports import DenseScores, EmbedderChoice
from tests.support.statements import round_trips, statements, wait_for_postings


def add(engine, content, owner="k1", **kw):
    return engine.memories.create(MemoryCreate(api_key_id=owner, content=content, **kw))


def ask(engine, query="", owner="k1", **kw):
    return engine.retrieval.retrieve(owner, RetrievalRequest(query=query, **kw))


def contents(result):
    return [r.content for r in result.results]


@pytest.fixture
def keyword_only(engine):
    """The keyword tier alone: what retrieval does with no embedder (static off), and
    with no relevance floor, so the reference's ranking and fallbacks show as they are
    (the floor has its own tests: test_relevance.py)."""
    engine.settings.update(MemorySettingsUpdate(static_enabled=False, relevance_floor=0.0))
    return engine


@pytest.fixture
def facts(keyword_only, clock):
    engine = keyword_only
    for text in [
        "User prefers TypeScript for frontend work",
        "User deploys with Kubernetes on Fridays",
        "User's cat is named Biscuit",
        "Project database is PostgreSQL 16",
    ]:
        clock.advance(minutes=1)
        add(engine, text)
    return engine


def test_exact_is_newest_first(facts):
    result = ask(facts, "cat", strategy=Strategy.EXACT)
    assert contents(result)[0] == "Project database is PostgreSQL 16"
    assert {r.tier for r in result.results} == {"recent"}


def test_semantic_ranks_keyword_matches_by_bm25(facts):
    result = ask(facts, "What is my cat called? Biscuit?", strategy=Strategy.SEMANTIC)
    assert contents(result) == ["User's cat is named Biscuit"]
    top = result.results[0]
    assert top.tier == "keyword" and top.fts_score > 0 and top.score == 1.0
    assert result.resolution.keyword_tier == "fts5"
    assert result.resolution.vector_store is None
    assert "keyword only" in result.resolution.reason


def test_stemming_matches_inflections(facts):
    assert contents(ask(facts, "deploying", strategy=Strategy.SEMANTIC)) == [
        "User deploys with Kubernetes on Fridays"
    ]


def test_semantic_without_a_match_falls_back_to_chronological(facts):
    result = ask(facts, "zebra", strategy=Strategy.SEMANTIC)
    assert contents(result)[0] == "Project database is PostgreSQL 16"
    assert result.resolution.fallback is True
    assert "chronological" in result.resolution.reason


def test_hybrid_puts_matches_first_then_fills_with_recent(facts):
    result = ask(facts, "kubernetes deployment", strategy=Strategy.HYBRID)
    assert contents(result)[0] == "User deploys with Kubernetes on Fridays"
    assert len(result.results) == 4
    assert [r.tier for r in result.results[1:]] == ["recent"] * 3


@pytest.mark.parametrize(
    "query",
    [
        'say "hi"',
        "C++",
        "R&D",
        "glob*",
        "(nested (parens)",
        "don't",
        "sci-fi",
        "NEAR(a b)",
        "col:val",
        "^start",
        "'; DROP TABLE memories; --",
        "\x00\x1f",
        "😀 emoji",
        "a" * 5000,
    ],
)
def test_any_query_text_is_safe(facts, query, db):
    for strategy in Strategy:
        result = ask(facts, query, strategy=strategy)
        assert result.results  # recent fallback at worst, never an error
    assert db.scalar("SELECT count(*) FROM memories") == 4


def test_missing_fts_index_falls_back_to_chronological(facts, db):
    for trigger in ("memory_fts_ai", "memory_fts_ad", "memory_fts_au"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("DROP TABLE memory_fts")
    assert not facts.status.report().keyword_tier.available
    result = ask(facts, "Biscuit", strategy=Strategy.SEMANTIC)
    assert contents(result)[0] == "Project database is PostgreSQL 16"
    assert result.resolution.keyword_tier == "unavailable"
    assert result.resolution.fallback is True
    add(facts, "still writable without the index")
    assert ask(facts, "x", strategy=Strategy.HYBRID).results


def test_expired_memories_are_not_retrieved(engine, clock):
    add(engine, "short-lived Biscuit fact", expires_at=clock.now + timedelta(minutes=1))
    add(engine, "lasting Biscuit fact")
    clock.advance(minutes=2)
    for strategy in Strategy:
        assert contents(ask(engine, "Biscuit", strategy=strategy)) == ["lasting Biscuit fact"]


def test_memories_past_retention_are_excluded_until_restated(engine, clock):
    add(engine, "old Biscuit fact", key="k:old")
    clock.advance(days=31)
    add(engine, "new Biscuit fact", key="k:new")
    for strategy in Strategy:
        assert contents(ask(engine, "Biscuit", strategy=strategy)) == ["new Biscuit fact"]
    engine.settings.update(MemorySettingsUpdate(retention_days=60))
    assert len(ask(engine, "Biscuit").results) == 2
    engine.settings.update(MemorySettingsUpdate(retention_days=30))
    add(engine, "old Biscuit fact", key="k:old")  # restating refreshes it
    assert len(ask(engine, "Biscuit").results) == 2


def test_budget_keeps_what_fits(engine, clock):
    for i, size in enumerate([40, 400, 40, 40]):  # 10, 100, 10, 10 tokens
        clock.advance(seconds=1)
        add(engine, f"m{i} " + "x" * (size - 3))
    result = ask(engine, strategy=Strategy.EXACT, max_tokens=30)
    assert [r.tokens for r in result.results] == [10, 10, 10]
    assert result.tokens_used == 30


def test_budget_returns_at_least_one_memory(engine):
    add(engine, "y" * 400)
    result = ask(engine, strategy=Strategy.EXACT, max_tokens=5)
    assert len(result.results) == 1
    assert result.tokens_used == 100


def test_zero_budget_returns_nothing(facts):
    result = ask(facts, "cat", max_tokens=0)
    assert result.results == [] and result.tokens_used == 0
    facts.settings.update(MemorySettingsUpdate(max_tokens=0))
    assert ask(facts, "cat").results == []


def test_budget_is_clamped_to_16000(engine):
    for i in range(30):
        add(engine, f"{i} " + "z" * 3990)  # ~1000 tokens each
    result = ask(engine, strategy=Strategy.EXACT, max_tokens=1_000_000, limit=100)
    assert 15_000 <= result.tokens_used <= 16_000
    assert len(result.results) == 16


def test_limit_caps_the_count(facts):
    assert len(ask(facts, strategy=Strategy.EXACT, limit=2).results) == 2


def test_keys_never_see_each_other(engine):
    add(engine, "Alice's secret Biscuit recipe", owner="alice")
    add(engine, "Bob's Biscuit preference", owner="bob")
    for strategy in Strategy:
        for scope in (Scope.API_KEY, Scope.GLOBAL):
            result = ask(engine, "Biscuit recipe", owner="bob", strategy=strategy, scope=scope)
            assert contents(result) == ["Bob's Biscuit preference"]


def test_session_scope_sees_only_that_session(engine):
    add(engine, "Biscuit in session one", session_id="s1")
    add(engine, "Biscuit in session two", session_id="s2")
    add(engine, "Biscuit with no session")
    result = ask(engine, "Biscuit", scope=Scope.SESSION, session_id="s1")
    assert contents(result) == ["Biscuit in session one"]
    assert len(ask(engine, "Biscuit").results) == 3


def test_session_scope_needs_a_session(engine):
    with pytest.raises(InvalidInputError) as info:
        ask(engine, "x", scope=Scope.SESSION)
    assert info.value.field == "sessionId"


def test_global_memories_are_visible_to_every_key_in_global_scope(engine):
    add(engine, "Company style guide says Biscuit", owner=GLOBAL_OWNER)
    add(engine, "alice's own Biscuit note", owner="alice")
    assert contents(ask(engine, "Biscuit", owner="bob", scope=Scope.GLOBAL)) == [
        "Company style guide says Biscuit"
    ]
    assert len(ask(engine, "Biscuit", owner="alice", scope=Scope.GLOBAL).results) == 2
    assert contents(ask(engine, "Biscuit", owner="bob")) == []


def test_hit_rate_counts_retrievals_with_results(engine):
    add(engine, "Biscuit", owner="k1")
    ask(engine, "Biscuit", owner="k1")
    ask(engine, "anything", owner="empty-key")
    engine.retrieval.preview("k1", RetrievalRequest(query="x"))  # read-only: not counted
    stats = engine.memories.stats()
    assert (stats.retrievals, stats.hit_rate) == (2, 0.5)
    assert engine.memories.stats("k1").hit_rate == 1.0


class OneDimension:
    """A deterministic embedder: a test double at the AI edge (no model needed)."""

    source, model, dim = "test", "constant", 1

    def embed(self, texts):
        return np.ones((len(texts), 1), dtype=np.float32)


class TestCatalog:
    def resolve(self, settings):
        return EmbedderChoice(OneDimension())

    def providers(self, settings):
        return []


class StaticVectors:
    """A deterministic vector tier: similarities given per memory id; the owner filter
    is honoured as a real tier must (memories it does not allow are never returned)."""

    store = "test-vectors"

    def __init__(self, db, sims=None, error=None):
        self.db, self.sims, self.error = db, sims or {}, error

    def dense(self, query, who, now_ms, cutoff_ms):
        if self.error:
            raise self.error
        found = SearchRepository(self.db).get_many(list(self.sims), who, now_ms, cutoff_ms)
        visible = {m.id for m in found}
        ids = list(self.sims)
        sims = np.array([self.sims[i] if i in visible else -np.inf for i in ids], dtype=np.float32)
        seqs = {
            r["seq"]: ids.index(r["id"])
            for r in self.db.query("SELECT seq, id FROM memories")
            if r["id"] in self.sims
        }
        return DenseScores(ids, sims, {i: n for n, i in enumerate(ids)}, {}, seqs)


@pytest.fixture
def vector_engine(engine, clock):
    """Engines over the same database whose vector evidence comes from a given tier."""
    opened = []

    def build(tier):
        vectors = open_engine(
            Config(db_url=engine.config.db_url),
            clock=clock,
            jobs="manual",
            catalog=TestCatalog(),
            vector_tier=lambda dim: tier,
        )
        opened.append(vectors)
        return vectors

    yield build
    for built in opened:
        built.close()


def test_hybrid_fuses_keyword_and_vector_ranks(facts, vector_engine, db):
    ids = {m.content: m.id for m in facts.memories.list_page(MemoryQuery()).data}
    cat, db_fact = ids["User's cat is named Biscuit"], ids["Project database is PostgreSQL 16"]
    tier = StaticVectors(db, {db_fact: 0.9, cat: 0.5})
    facts.settings.update(MemorySettingsUpdate(fusion="rrf"))
    result = ask(vector_engine(tier), "Biscuit", strategy=Strategy.HYBRID)
    top = result.results[0]
    assert top.content == "User's cat is named Biscuit"  # in both lists
    assert top.tier == "hybrid" and top.fts_score and top.vec_score == 0.5
    assert pytest.approx(top.score) == 1 / 61 + 1 / 62
    assert result.results[1].tier == "vector"
    facts.settings.update(MemorySettingsUpdate(fusion="weighted"))
    weighted = ask(vector_engine(tier), "Biscuit", strategy=Strategy.HYBRID)
    assert weighted.results[0].content == "User's cat is named Biscuit"  # 1 + 0.5 > 0.9
    assert pytest.approx(weighted.results[0].score) == 1.0 + 0.5
    assert pytest.approx(weighted.results[1].score) == 0.9
    assert (result.resolution.vector_store, result.resolution.embedding_source) == (
        "test-vectors",
        "test",
    )
    assert result.resolution.fallback is False
    semantic = ask(vector_engine(tier), "Biscuit", strategy=Strategy.SEMANTIC)
    assert contents(semantic)[0] == "Project database is PostgreSQL 16"


def test_a_failing_vector_tier_degrades_to_keyword(facts, vector_engine, db):
    tier = StaticVectors(db, error=StorageError("vector index down"))
    result = ask(vector_engine(tier), "Biscuit", strategy=Strategy.HYBRID)
    assert contents(result)[0] == "User's cat is named Biscuit"
    assert result.resolution.fallback is True
    assert "failed" in result.resolution.reason
    assert result.resolution.vector_store is None


def test_vector_hits_of_another_owner_are_dropped(engine, vector_engine, db):
    foreign = add(engine, "someone else's memory", owner="other")
    mine = add(engine, "my memory", owner="k1")
    tier = StaticVectors(db, {foreign.id: 0.99, mine.id: 0.1})
    result = ask(vector_engine(tier), "memory", strategy=Strategy.SEMANTIC)
    assert contents(result) == ["my memory"]


@pytest.mark.parametrize("owner", ["user@example.com", "team:a.b-c_d", "K9", "key_" + "f" * 120])
def test_keyword_search_finds_each_owners_rows_through_the_owner_token(keyword_only, engine, owner):
    add(engine, "Biscuit the cat", owner=owner)
    add(engine, "Biscuit the dog", owner=owner + "x" if len(owner) < 128 else "other")
    result = ask(engine, "Biscuit", owner=owner, strategy=Strategy.SEMANTIC)
    assert contents(result) == ["Biscuit the cat"]
    assert result.results[0].tier == "keyword"


def test_a_retrieval_reads_the_owners_version_once(engine):
    """The vector index, the keyword postings and the lazy-embedding check all need the
    owner's version; read once per retrieval (against a server each read was a round
    trip: a warm preview went from 3 to 2)."""
    for i, text in enumerate(["Biscuit the cat hates baths", "Sushi on Fridays", "Postgres"]):
        add(engine, text, key=f"f{i}")
    ask(engine, "cat")
    wait_for_postings(engine)
    own = engine.retrieval.search.db
    for request in (
        lambda: ask(engine, "Which cat hates baths?"),
        lambda: engine.retrieval.preview("k1", RetrievalRequest(query="sushi")),
    ):
        sent = statements(own, request)
        assert sum("owner_versions" in sql for sql in sent) == 1, sent


def test_a_retrieval_after_a_write_catches_up_in_one_round_trip_per_index(engine):
    """Conversation memory writes with every exchange, so the next retrieval first brings
    the owner's vector index and keyword postings up to that write: the rows and deletions
    since each one's version in one batch each, with no transaction (which cost a server
    four round trips and took a file's write lock): two more than a retrieval with nothing
    to catch up on (against a server, 4 in all where it was 9)."""
    for i, text in enumerate(["Biscuit the cat hates baths", "Sushi on Fridays", "Postgres"]):
        add(engine, text, key=f"f{i}")
    ask(engine, "Which cat hates baths?")
    wait_for_postings(engine)
    own = engine.retrieval.search.db

    def preview():
        request = RetrievalRequest(query="Which cat hates baths?")
        return engine.retrieval.preview("k1", request)

    preview()
    for i in range(3):
        unchanged = round_trips(own, preview)  # 2 against a server: the version, the rows
        written = add(engine, f"The cat hates baths on Sundays, week {i}", key=f"m{i}")
        assert round_trips(own, preview) == unchanged + 2
        assert written.id in {r.id for r in preview().results}


def test_a_write_landing_while_the_vector_index_catches_up_is_read_next_time(engine):
    """Catching up takes no snapshot: the version was read first, so a write landing
    while the changes are read carries a later version, and the next retrieval reads it."""
    for i, text in enumerate(["Biscuit the cat hates baths", "Sushi on Fridays", "Postgres"]):
        add(engine, text, key=f"f{i}")
    ask(engine, "Which cat hates baths?")
    rows = engine.vectors.rows
    changes = rows.changes
    landed = []

    def racing(owner, since, dim=0, **kw):
        found = changes(owner, since, dim, **kw)
        if not landed:  # after the read: this catch-up cannot have seen it
            landed.append(add(engine, "The cat hates baths on Sundays", key="late"))
        return found

    rows.changes = racing
    add(engine, "Sushi on Saturdays too", key="first")
    engine.retrieval.preview("k1", RetrievalRequest(query="sushi"))
    rows.changes = changes
    index = engine.vectors.libsql_tier(engine.vectors.embeddings.current().embedder.dim).cache
    assert landed and landed[0].id not in index._indexes["k1"].position
    engine.retrieval.preview("k1", RetrievalRequest(query="sushi"))
    assert landed[0].id in index._indexes["k1"].position


def test_a_retrieval_that_read_an_older_version_leaves_a_newer_index_alone(engine):
    """Another thread's retrieval may have brought the index past the version this one
    read: going back would read and apply the same changes again (counting deletions twice
    towards a full reload on the request path)."""
    for i, text in enumerate(["Biscuit the cat hates baths", "Sushi on Fridays", "Postgres"]):
        add(engine, text, key=f"f{i}")
    ask(engine, "Which cat hates baths?")
    rows = engine.vectors.rows
    dim = engine.vectors.embeddings.current().embedder.dim
    cache = engine.vectors.libsql_tier(dim).cache
    newer = cache._indexes["k1"].version
    observed, changes, read = rows.observed_version, rows.changes, []
    rows.observed_version = lambda owner: newer - 1
    rows.changes = lambda owner, since, dim=0, **kw: (
        read.append(since) or changes(owner, since, dim, **kw)
    )
    try:
        index = cache.get("k1", dim, rows)
    finally:
        rows.observed_version, rows.changes = observed, changes
    assert (index.version, read) == (newer, [])


def test_a_retrieval_after_a_write_waits_for_no_write_lock(engine, db):
    """Catching up with a write reads without a transaction: another connection's long
    write (an import, a reindex) holds no retrieval back."""
    if db.is_remote:
        pytest.skip("about a file's write lock")
    for i, text in enumerate(["Biscuit the cat hates baths", "Sushi on Fridays", "Postgres"]):
        add(engine, text, key=f"f{i}")
    ask(engine, "Which cat naps?")
    wait_for_postings(engine)
    engine.retrieval.preview("k1", RetrievalRequest(query="Which cat naps?"))
    add(engine, "The cat naps in the sun", key="new")
    db.execute("BEGIN IMMEDIATE")
    try:
        result = engine.retrieval.preview("k1", RetrievalRequest(query="Which cat naps?"))
    finally:
        db.execute("ROLLBACK")
    assert result.resolution.fallback is False, result.resolution.reason
    assert "The cat naps in the sun" in contents(result)


def test_counts_from_a_file_are_written_together_not_per_retrieval(engine, config, db):
    """A retrieval from a file writes nothing for its counter (a commit and the write
    lock each time); the counts reach the file within a second, before any read of
    them, and when the engine closes."""
    if engine.retrieval.search.db.is_remote:
        pytest.skip("a server's counter goes with the next request (execute_deferred)")
    add(engine, "Biscuit", owner="k1")
    ask(engine, "Biscuit", owner="k1")
    assert db.scalar("SELECT count(*) FROM retrieval_stats") == 0  # not written with it
    deadline = time.monotonic() + 10
    while db.scalar("SELECT sum(retrievals) FROM retrieval_stats") != 1:  # the timer's flush
        assert time.monotonic() < deadline, "the counts were never written"
        time.sleep(0.05)
    engine.retrieval.stats.flush_after_s = 60  # what follows is not the timer's
    for _ in range(3):
        ask(engine, "Biscuit", owner="k1")
    ask(engine, "anything", owner="empty-key")
    assert db.scalar("SELECT sum(retrievals) FROM retrieval_stats") == 1  # not yet
    assert engine.memories.stats("k1").retrievals == 4  # a read writes them first
    ask(engine, "Biscuit", owner="k1")
    engine.close()
    assert db.scalar("SELECT retrievals FROM retrieval_stats WHERE api_key_id = 'k1'") == 5
    assert db.scalar("SELECT hits FROM retrieval_stats WHERE api_key_id = 'empty-key'") == 0


def test_counts_a_read_only_file_cannot_take_are_reported(engine, config, db_path):
    """Written off the request path, a counter that fails cannot fail the retrieval; the
    health report says so instead."""
    if engine.retrieval.search.db.is_remote:
        pytest.skip("a read-only file")
    add(engine, "Biscuit", owner="k1")
    engine.close()
    frozen = open_engine(
        config.model_copy(update={"db_url": f"file:{db_path}?mode=ro"}), jobs="manual"
    )
    try:
        assert contents(ask(frozen, "Biscuit", owner="k1")) == ["Biscuit"]
        deadline = time.monotonic() + 10
        while "retrieval stats" not in {f.component for f in frozen.retrieval.failures.current()}:
            assert time.monotonic() < deadline, "the failed counter was never reported"
            time.sleep(0.05)
    finally:
        frozen.close()
