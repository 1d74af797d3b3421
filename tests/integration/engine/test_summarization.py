"""Summarization and cleanup, and the scheduled functions that run them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram import Config, MemorySettingsUpdate, open_engine, reset_engines
from engram.models import (
    GLOBAL_OWNER,
    ExtractionJob,
    MemoryCreate,
    MemoryQuery,
    SummarizeRequest,
)
from engram.summarization import first_sentences
from tests.support.lambda_support import LambdaContext, load_event, load_function


def add(engine, content, owner="k1", **kw):
    return engine.memories.create(MemoryCreate(api_key_id=owner, content=content, **kw))


def contents(engine, owner="k1"):
    return [m.content for m in engine.memories.list_page(MemoryQuery(api_key_id=owner)).data]


def test_first_sentences():
    assert first_sentences("One. Two! Three? Four. Five.") == "One. Two! Three?"
    assert first_sentences("no punctuation at all") == "no punctuation at all"


def test_summarize_keeps_the_newest_that_fit_and_shortens_the_rest(engine, clock):
    long = "First point. Second point. Third point. Fourth point. Fifth point."
    for i in range(3):
        add(engine, f"{i}: {long}", key=f"k{i}")
        clock.advance(minutes=1)
    saved = engine.maintenance.summarize("k1", max_tokens=20)  # fits one memory
    assert saved > 0
    stored = contents(engine)  # newest first
    assert stored[0] == f"2: {long}"
    assert stored[1:] == [
        "1: First point. Second point. Third point.",
        "0: First point. Second point. Third point.",
    ]


def test_summarize_older_than_dry_run_changes_nothing(engine, clock):
    add(engine, "old fact one", key="a")
    add(engine, "old fact two", key="b", type="episodic")
    clock.advance(days=40)
    add(engine, "recent fact", key="c")
    before = contents(engine)
    result = engine.maintenance.summarize_older_than(
        SummarizeRequest(older_than_days=30, api_key_id="k1", dry_run=True)
    )
    assert (result.candidates, result.summaries, result.dry_run) == (2, 0, True)
    assert contents(engine) == before


def test_summarize_older_than_compacts_into_one_typed_line_each(engine, clock):
    add(engine, "old fact one", key="a")
    add(engine, "old   fact\ntwo", key="b", type="episodic")
    add(engine, "someone else's old fact", owner="k2")
    clock.advance(days=40)
    add(engine, "recent fact", key="c")
    result = engine.maintenance.summarize_older_than(
        SummarizeRequest(older_than_days=30, api_key_id="k1", dry_run=False)
    )
    assert (result.candidates, result.summaries) == (2, 1)
    memories = engine.memories.list_page(MemoryQuery(api_key_id="k1")).data
    summary = next(m for m in memories if m.key.startswith("summary:"))
    assert summary.content == "factual: old fact one\nepisodic: old fact two"
    assert summary.metadata == {"category": "summary", "summarized": 2}
    assert sorted(m.content for m in memories) == sorted(["recent fact", summary.content])
    assert contents(engine, "k2") == ["someone else's old fact"]  # other keys untouched
    again = engine.maintenance.summarize_older_than(
        SummarizeRequest(older_than_days=30, api_key_id="k1", dry_run=False)
    )
    assert again.candidates == 0  # summaries are not summarized again


def test_summaries_stay_under_the_content_limit(engine, clock):
    for i in range(40):
        add(engine, f"{i} " + "x" * 400, key=f"k{i}")
    clock.advance(days=40)
    result = engine.maintenance.summarize_older_than(
        SummarizeRequest(older_than_days=30, dry_run=False)
    )
    assert result.summaries == 3  # 40 lines of ~410 bytes in texts of at most 8 KiB
    assert all(len(c.encode()) <= 8192 for c in contents(engine))


def test_auto_summarize_only_when_enabled(engine, clock):
    add(engine, "old fact")
    clock.advance(days=20)
    assert engine.maintenance.auto_summarize() is None
    engine.settings.update(MemorySettingsUpdate(auto_summarize=True))  # retention 30 -> 15 days
    assert engine.maintenance.auto_summarize().summaries == 1


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

    add(engine, "old fact")
    clock.advance(days=40)
    app = create_app(
        config=Config(db_url=engine.config.db_url, admin_token=SecretStr("t")),
        engine=lambda: engine,
    )
    client = TestClient(app, headers={"Authorization": "Bearer t"})
    dry = client.post("/api/memory/summarize", json={"olderThanDays": 30})
    assert dry.json() == {"candidates": 1, "tokensSaved": 0, "summaries": 0, "dryRun": True}
    assert client.post("/api/memory/summarize", json={"olderThanDays": 0}).status_code == 422
    done = client.post("/api/memory/summarize", json={"olderThanDays": 30, "dryRun": False})
    assert done.json()["summaries"] == 1


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
