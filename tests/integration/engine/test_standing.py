"""Standing instructions are read from the database once per owner version, and still
go with every request as the database says they are now: a new one written by another
process comes at once, an expired one or one past retention never."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram import Config, MemorySettingsUpdate, open_engine
from engram.adapters.libsql.standing import CAP
from engram.models import MemoryCreate, RetrievalRequest
from tests.support.statements import statements

QUESTION = "Which database should I use for the project?"


def instruct(engine, text, key, **fields):
    return engine.memories.create(
        MemoryCreate(
            api_key_id="k1", key=key, content=text, metadata={"category": "instruction"}, **fields
        )
    )


def standing(engine):
    results = engine.retrieval.retrieve("k1", RetrievalRequest(query=QUESTION)).results
    return [r.content for r in results if r.tier == "standing"]


def instruction_reads(engine):
    sent = statements(engine.retrieval.search.db, lambda: standing(engine))
    return [sql for sql in sent if "instruction" in sql]


@pytest.fixture
def instructed(engine):
    engine.memories.create(MemoryCreate(api_key_id="k1", content="We use Postgres for this."))
    instruct(engine, "keep answers under 200 words", "style")
    return engine


def test_read_once_per_version(instructed):
    assert instruction_reads(instructed)  # the first retrieval reads them
    assert instruction_reads(instructed) == []  # nothing written since: not again
    assert standing(instructed) == ["keep answers under 200 words"]
    instruct(instructed, "always cite your sources", "cite")
    assert instruction_reads(instructed)  # a write moved the version
    assert standing(instructed) == ["always cite your sources", "keep answers under 200 words"]


def test_another_process_writing_one_is_seen_at_once(instructed, config, clock):
    style = next(m for m in instructed.memories.export("k1") if m.key == "style")
    assert standing(instructed) == ["keep answers under 200 words"]
    other = open_engine(config, clock=clock, jobs="manual")
    try:
        clock.advance(seconds=1)
        instruct(other, "never use emojis", "emoji")
        other.memories.delete(style.id, "k1")
    finally:
        other.close()
    assert standing(instructed) == ["never use emojis"]


def test_expiry_and_retention_apply_at_each_query(instructed, clock):
    """Neither moves the version: the clock alone retires an instruction."""
    instruct(
        instructed,
        "answer in French this week",
        "french",
        expires_at=clock.now + timedelta(hours=1),
    )
    assert standing(instructed) == ["answer in French this week", "keep answers under 200 words"]
    clock.advance(hours=2)
    assert standing(instructed) == ["keep answers under 200 words"]
    instructed.settings.update(MemorySettingsUpdate(retention_days=1))
    clock.advance(days=2)
    instructed.memories.create(MemoryCreate(api_key_id="k1", content="We use Postgres now."))
    assert standing(instructed) == []


def test_an_owner_with_more_than_the_cache_holds(engine, clock):
    """The newest ten live ones still go when more than the cache holds are newer but
    expired."""
    for i in range(15):
        instruct(engine, f"rule number {i}", f"rule{i}")
        clock.advance(seconds=1)
    soon = clock.now + timedelta(minutes=1)
    for i in range(15, 15 + CAP):
        instruct(engine, f"rule number {i}", f"rule{i}", expires_at=soon)
    clock.advance(minutes=2)
    for _ in range(2):  # read with the SQL conditions both times: too many to keep
        assert standing(engine) == [f"rule number {i}" for i in range(14, 4, -1)]


def test_no_version_is_read_for_them_alone(config, clock):
    """With neither vectors nor keyword postings (which read the owner's version first),
    the instructions are read as they are: reading the version only to look them up
    would cost the statement (a round trip to a server) the cache spares."""
    engine = open_engine(
        Config(**{**config.model_dump(), "keyword_cache_mb": 0}), clock=clock, jobs="manual"
    )
    try:
        engine.settings.update(MemorySettingsUpdate(static_enabled=False))
        instruct(engine, "keep answers under 200 words", "style")
        sent = statements(engine.retrieval.search.db, lambda: standing(engine))
        assert not [sql for sql in sent if "owner_versions" in sql]
        assert [sql for sql in sent if "instruction" in sql]
        assert standing(engine) == ["keep answers under 200 words"]
    finally:
        engine.close()
