"""Summarization and cleanup, and the scheduled functions that run them."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from engram import Config, MemorySettingsUpdate, open_engine, reset_engines
from engram.app.maintenance import first_sentences
from engram.domain.compaction import MAX_SUMMARY_CHARS, shorten
from engram.domain.models import (
    GLOBAL_OWNER,
    ExtractionJob,
    MemoryCreate,
    MemoryQuery,
    QdrantSettingsUpdate,
    RetrievalRequest,
    SummarizeRequest,
)
from tests.support.lambda_support import LambdaContext, load_event, load_function


def add(engine, content, owner="k1", **kw):
    return engine.memories.create(MemoryCreate(api_key_id=owner, content=content, **kw))


def contents(engine, owner="k1"):
    return [m.content for m in engine.memories.list_page(MemoryQuery(api_key_id=owner)).data]


def stored(engine, owner="k1"):
    return engine.memories.list_page(MemoryQuery(api_key_id=owner, limit=500)).data


def summarize(engine, days=7, owner="k1", dry_run=False):
    request = SummarizeRequest(older_than_days=days, api_key_id=owner, dry_run=dry_run)
    return engine.maintenance.summarize_older_than(request)


def found(engine, query, owner="k1", strategy=None):
    request = RetrievalRequest(query=query, strategy=strategy, max_tokens=16_000, limit=100)
    return [m.content for m in engine.retrieval.preview(owner, request).results]


def learn(engine, text, owner="k1"):
    engine.memories.extract_and_store(owner, text)


def test_first_sentences():
    assert first_sentences("One. Two! Three? Four. Five.") == "One. Two! Three?"
    assert first_sentences("no punctuation at all") == "no punctuation at all"


def test_shorten_drops_filler_and_articles_never_negations():
    assert shorten("Actually, the team really prefers to review in the morning.") == (
        "team prefers to review in morning"
    )
    assert shorten("I think the user does not use Windows. Never at all.") == (
        "does not use Windows. Never at all"
    )
    assert shorten("The user is allergic to nuts, which are everywhere.") == (
        "allergic to nuts, everywhere"
    )
    assert shorten("is not a morning person") == "is not morning person"
    assert shorten("The user's editor is Neovim") == "user's editor is Neovim"
    assert shorten("Vitamin A. One. Two. Three.") == "Vitamin A. One. Two"  # 3 sentences


def test_budget_mode_keeps_the_newest_whole_and_folds_the_rest(engine, clock):
    long = "First point about deploys. Second point. Third point. Fourth point."
    for i in range(3):
        add(engine, f"Note {i}: the {long}", key=f"k{i}")
        clock.advance(minutes=1)
    result = engine.maintenance.summarize("k1", max_tokens=20)  # fits one memory
    assert result.tokens_saved > 0 and len(result.candidates) == 2
    newest, summary = stored(engine)  # newest first
    assert newest.content == f"Note 2: the {long}"
    assert summary.content == (
        "Note 0: First point about deploys. Second point. Third point; "
        "Note 1: First point about deploys. Second point. Third point"
    )
    # Stamped with its originals' times, not the summarization's.
    assert summary.updated_at == clock.now - timedelta(minutes=2)
    assert summary.created_at == clock.now - timedelta(minutes=3)
    again = engine.maintenance.summarize("k1", max_tokens=20)
    assert again.candidates == [] and len(stored(engine)) == 2  # summaries stay as they are


def test_dry_run_lists_candidates_and_the_summary_it_would_write(engine, clock):
    add(engine, "The user has a dog named Pixel, who is a border collie.", key="a")
    add(engine, "The user has a dog named Pixel.", key="b")
    clock.advance(days=10)
    add(engine, "recent fact", key="c")
    before = stored(engine)
    result = summarize(engine, dry_run=True)
    assert stored(engine) == before  # nothing changed
    assert result.dry_run is True and result.past_retention == 0
    outcomes = {c.key: (c.outcome, c.line) for c in result.candidates}
    assert outcomes == {
        "a": ("kept", "has dog named Pixel, border collie"),
        "b": ("duplicate", None),
    }
    (summary,) = result.summaries
    assert summary.content == "has dog named Pixel, border collie"
    assert summary.metadata == {
        "summary": True,
        "summarized": 2,
        "validFrom": "2026-11-30T12:00:00.000Z",
        "validTo": "2026-11-30T12:00:00.000Z",
    }
    assert {c.summary_key for c in result.candidates} == {summary.key}
    assert sorted(summary.replaces) == sorted(c.id for c in result.candidates)
    assert summary.valid_to == clock.now - timedelta(days=10)
    assert result.tokens_before == sum(c.tokens for c in result.candidates) == 22
    assert result.tokens_after == summary.tokens == 9
    done = summarize(engine)
    assert done.model_dump(exclude={"dry_run"}) == result.model_dump(exclude={"dry_run"})
    assert sorted(contents(engine)) == sorted(["recent fact", summary.content])


def test_groups_by_category_and_subject_drop_superseded_and_duplicates(engine, clock):
    learn(engine, "I prefer TypeScript for frontend work.")
    learn(engine, "I like Python.")
    learn(engine, "I use Docker for local development.")
    add(
        engine,
        "uses Docker",
        key="tech_preference:docker_again",
        metadata={"category": "tech_preference", "object": "docker"},
    )
    add(
        engine,
        "lives in Lisbon",
        key="identity:location:1",
        metadata={"category": "identity", "subject": "location", "object": "lisbon"},
    )
    clock.advance(days=1)
    add(
        engine,
        "lives in Porto",
        key="identity:location:2",
        metadata={"category": "identity", "subject": "location", "object": "porto"},
    )
    clock.advance(days=10)
    result = summarize(engine, dry_run=True)
    outcome = {c.content: c.outcome for c in result.candidates}
    assert outcome["uses Docker"] == "duplicate"
    assert outcome["lives in Lisbon"] == "superseded"
    summaries = {s.metadata["category"]: s for s in result.summaries}
    assert summaries["identity"].content == "location: lives in Porto"
    assert summaries["identity"].metadata["subject"] == "location"
    assert summaries["tech_preference"].content == "uses Docker for local development"
    # A group with nothing to gain (two short preferences) is left as it is.
    assert "preference" not in summaries
    assert "Python" not in outcome


def test_summaries_stay_small(engine, clock):
    for i in range(40):
        add(engine, f"Basically, the fact number {i} is that the " + "word " * 60, key=f"k{i}")
    clock.advance(days=10)
    result = summarize(engine, owner=None)
    assert len(result.summaries) > 1
    assert all(len(c) <= MAX_SUMMARY_CHARS for c in contents(engine))


def test_memories_past_retention_stay_hidden(engine, clock):
    """Retention 30 days: memories 40 days old are not brought back by a summary; the
    cleanup schedule removes them."""
    add(engine, "The deploy key rotates every Monday morning.", key="a")
    add(engine, "The deploy key rotates every Monday.", key="b")
    clock.advance(days=40)
    assert found(engine, "deploy key") == []
    result = summarize(engine)
    assert (result.candidates, result.summaries, result.past_retention) == ([], [], 2)
    assert found(engine, "deploy key") == []
    assert found(engine, "", strategy="exact") == []
    assert engine.maintenance.cleanup().past_retention == 2
    assert stored(engine) == []


def test_a_summary_ages_with_its_newest_original(engine, clock, qdrant_on):
    """A summary's time is its newest original's: retrieval's retention cut-off, the
    cleanup schedule and Qdrant's payload all hide it when they would hide that one."""
    add(engine, "The deploy key rotates every Monday morning.", key="a")
    clock.advance(days=5)
    add(engine, "Basically, the deploy key rotates every Monday.", key="b")
    clock.advance(days=10)
    summary = summarize(engine).summaries[0]
    embed_all(engine)
    assert found(engine, "deploy key") == [summary.content]
    assert engine.maintenance.cleanup(dry_run=True).past_retention == 0
    clock.advance(days=21)  # the newest original would be 31 days old: past retention
    assert found(engine, "deploy key") == []
    assert found(engine, "", strategy="exact") == []
    assert engine.qdrant.cleanup_points(engine.now_ms(), retention_cutoff(engine), True) == 1
    done = engine.maintenance.cleanup()
    assert (done.past_retention, done.qdrant_points) == (1, 1)
    assert stored(engine) == []


# A realistic week or two of one user's memories: facts the proxy learnt from chat, and
# notes an application stored through the API (restatements included).
CHAT = [
    "I prefer TypeScript for frontend work.",
    "We decided to use Postgres for this project.",
    "My name is Alice and I work at Acme Corp.",
    "I live in Lisbon.",
    "I always commit before pushing.",
    "Please always answer in British English.",
    "I use Docker for local development.",
]
NOTES = [
    "The user is basically working on a billing service that is written in Go and deployed"
    " to AWS Lambda.",
    "Actually, the team really prefers to review pull requests in the morning, just before"
    " the daily standup.",
    "I think the staging database is refreshed from production every Sunday night.",
    "The user's favourite editor is Neovim with a custom Lua configuration.",
    "The user's favourite editor is Neovim.",
    "The user has a dog named Pixel, who is a border collie.",
    "The user has a dog named Pixel.",
    "Basically, the CI pipeline runs on GitHub Actions and takes about twelve minutes.",
    "It is worth noting that the user is allergic to peanuts.",
    "The user is planning a trip to Japan in the spring.",
    "The user is planning a trip to Japan.",
    "To be honest, the user finds the Terraform modules in the infra repository hard to follow.",
]
# One query per distinct fact, and a phrase of it that must come back.
FACTS = [
    ("TypeScript frontend", "TypeScript for frontend work"),
    ("which database Postgres", "Postgres for this project"),
    ("what is my name", "Alice"),
    ("where do I work", "Acme Corp"),
    ("where do I live", "Lisbon"),
    ("commit before pushing", "commit before pushing"),
    ("British English", "British English"),
    ("Docker local development", "Docker for local development"),
    ("billing service Go Lambda", "billing service written in Go"),
    ("pull request review morning", "review pull requests in morning"),
    ("staging database refresh", "refreshed from production every Sunday night"),
    ("favourite editor", "Neovim with custom Lua configuration"),
    ("dog Pixel", "dog named Pixel, border collie"),
    ("CI pipeline GitHub Actions", "GitHub Actions and takes about twelve minutes"),
    ("peanuts allergy", "allergic to peanuts"),
    ("trip to Japan", "trip to Japan in spring"),
    ("Terraform modules", "Terraform modules in infra repository"),
]


def test_recent_memories_shrink_by_a_third_and_every_fact_stays_findable(engine, clock):
    for text in CHAT:
        learn(engine, text)
        clock.advance(hours=20)
    for text in NOTES:
        add(engine, text)
        clock.advance(hours=20)
    clock.advance(days=8)
    before = engine.memories.stats("k1").tokens_used
    result = summarize(engine)
    after = engine.memories.stats("k1").tokens_used
    print(
        f"realistic set: {len(CHAT) + len(NOTES)} messages and notes, {before} -> {after}"
        f" tokens ({(before - after) / before:.0%} saved);"
        f" candidates {result.tokens_before} -> {result.tokens_after}"
    )
    assert result.tokens_before - result.tokens_after == result.tokens_saved == before - after
    assert after <= before * 0.7
    for query, phrase in FACTS:
        assert any(phrase in text for text in found(engine, query)), (query, phrase)


def test_auto_summarize_only_when_enabled(engine, clock):
    add(engine, "Basically the user really likes the colour green.")
    clock.advance(days=20)
    assert engine.maintenance.auto_summarize() is None
    engine.settings.update(MemorySettingsUpdate(auto_summarize=True))  # retention 30 -> 15 days
    assert len(engine.maintenance.auto_summarize().summaries) == 1
    assert contents(engine) == ["likes colour green"]


def test_cleanup_counts_first_then_removes(engine, clock, db):
    add(engine, "expires soon", key="e", expires_at=clock.now + timedelta(hours=1))
    add(engine, "will go stale", key="s")
    add(engine, "curated for everyone", owner=GLOBAL_OWNER)
    engine.memories.process_extraction(ExtractionJob(api_key_id="k1", text="x", request_id="r1"))
    clock.advance(days=31)
    add(engine, "fresh", key="f")
    dry = engine.maintenance.cleanup(dry_run=True)
    assert (dry.expired, dry.past_retention, dry.processed_jobs) == (1, 1, 1)
    assert sorted(contents(engine)) == ["fresh", "will go stale"]  # expired: already hidden
    done = engine.maintenance.cleanup()
    assert done.model_dump(exclude={"dry_run"}) == dry.model_dump(exclude={"dry_run"})
    assert contents(engine) == ["fresh"]
    assert contents(engine, GLOBAL_OWNER) == ["curated for everyone"]
    assert db.scalar("SELECT count(*) FROM processed_jobs") == 0
    clock.advance(days=16)
    assert engine.maintenance.cleanup().tombstones == 2  # from the two deletions above


def test_summarize_endpoint(engine, clock):
    from fastapi.testclient import TestClient
    from pydantic import SecretStr

    from shared.http import create_app

    add(engine, "Basically the user really likes the colour green.")
    clock.advance(days=40)
    add(engine, "The user really likes the colour blue.")
    clock.advance(days=10)
    app = create_app(
        config=Config(db_url=engine.config.db_url, admin_token=SecretStr("t")),
        engine=lambda: engine,
    )
    client = TestClient(app, headers={"Authorization": "Bearer t"})
    dry = client.post("/api/memory/summarize", json={"olderThanDays": 7}).json()
    assert (dry["dryRun"], dry["pastRetention"], dry["tokensSaved"]) == (True, 1, 5)
    assert [c["content"] for c in dry["candidates"]] == ["The user really likes the colour blue."]
    assert [s["content"] for s in dry["summaries"]] == ["likes colour blue"]
    assert dry["summaries"][0]["validTo"] == "2027-01-09T12:00:00.000Z"
    assert client.post("/api/memory/summarize", json={"olderThanDays": 0}).status_code == 422
    for bad in ({"dryRun": "no"}, {"olderThanDays": "30"}):
        assert client.post("/api/memory/summarize", json=bad).status_code == 422
    done = client.post("/api/memory/summarize", json={"olderThanDays": 7, "dryRun": False})
    assert len(done.json()["summaries"]) == 1


@pytest.fixture
def qdrant_on(engine):
    engine.qdrant.update(QdrantSettingsUpdate(enabled=True))
    return engine


def embed_all(engine):
    while engine.vectors.reindex(max_seconds=10).pending:
        pass


def retention_cutoff(engine):
    return engine.now_ms() - engine.settings.get().retention_days * 86_400_000


@pytest.fixture
def scheduled(monkeypatch, db_url):
    monkeypatch.setenv("ENGRAM_DB_URL", db_url)
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "EngramTest")
    reset_engines()
    engine = open_engine(Config(db_url=db_url), jobs="manual")
    yield engine
    engine.close()
    reset_engines()


def test_scheduled_functions_run_with_their_events(scheduled, caplog):
    scheduled.memories.create(MemoryCreate(api_key_id="k1", content="needs a vector"))
    summarize = load_function("summarize_schedule").handler(
        load_event("summarize_schedule_daily"), LambdaContext()
    )
    assert summarize == {"job": "Summarize", "skipped": True}  # autoSummarize is off
    cleanup = load_function("cleanup_schedule").handler(
        load_event("cleanup_schedule_hourly"), LambdaContext()
    )
    assert cleanup["job"] == "Cleanup" and cleanup["expired"] == 0
    reindex = load_function("reindex_schedule").handler(
        load_event("reindex_schedule_tick"), LambdaContext()
    )
    assert (reindex["started"], reindex["processed"], reindex["pending"]) == (True, 1, 0)
    jobs = {r.job for r in caplog.records if r.getMessage() == "scheduled job done"}
    assert jobs == {"Summarize", "Cleanup", "Reindex"}


def test_folding_announces_removals_after_the_commit(engine, clock):
    """The removal hooks take index locks and call Qdrant: run inside the summarize
    transaction they held the connection, and a request holding an index lock while it
    waited for the connection deadlocked with them."""
    for i in range(3):
        add(engine, f"Note {i}: the first point about deploys. Second point.", key=f"k{i}")
        clock.advance(minutes=1)
    seen = []

    def hook(removed):
        # Another thread must reach the engine's connection while the hooks run.
        probe = threading.Thread(target=lambda: seen.append(len(stored(engine))))
        probe.start()
        probe.join(timeout=10)
        seen.append(("removed", len(removed.ids)))

    engine.memories.on_remove = (*engine.memories.on_remove, hook)
    result = engine.maintenance.summarize("k1", max_tokens=20)
    assert len(result.candidates) == 2
    assert seen == [2, ("removed", 2)]  # the summary and the newest note
