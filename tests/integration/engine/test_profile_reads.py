"""The profile (here, standing instructions) is read from the database once per owner
version, and still goes with every request as the database says it is now: a new
memory written by another process comes at once, an expired one or one past retention
never."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engram import MemorySettingsUpdate, open_engine
from engram.adapters.libsql.profile import CAP, PROFILE_SQL
from engram.app.retrieval import PROFILE_LIMIT
from engram.domain.models import MemoryCreate, RetrievalRequest
from tests.support.statements import statements

QUESTION = "Which database should I use for the project?"


def instruct(engine, text, key, **fields):
    return engine.memories.create(
        MemoryCreate(
            api_key_id="k1", key=key, content=text, metadata={"category": "instruction"}, **fields
        )
    )


def standing(engine, **request):
    asked = RetrievalRequest(query=QUESTION, profile_tokens=16_000, **request)
    results = engine.retrieval.retrieve("k1", asked).results
    return [r.content for r in results if r.tier == "profile"]


def instruction_reads(engine):
    sent = statements(engine.retrieval.search.db, lambda: standing(engine))
    return [sql for sql in sent if PROFILE_SQL in sql]


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
    """Read with the time conditions, as before the cache, once found to be too many;
    the newest live ones go, the newest of all expiring between two retrievals."""
    soon = clock.now + timedelta(minutes=5)
    for i in range(CAP + 6):
        expiry = {"expires_at": soon} if i >= CAP + 1 else {}
        instruct(engine, f"rule number {i}", f"rule{i}", **expiry)
        clock.advance(seconds=1)
    newest = range(CAP + 5, CAP + 5 - PROFILE_LIMIT, -1)
    assert standing(engine) == [f"rule number {i}" for i in newest]
    clock.advance(minutes=10)
    reads = instruction_reads(engine)
    assert len(reads) == 1 and "updated_at >= ?" in reads[0]  # at once, one statement
    assert standing(engine) == [f"rule number {i}" for i in range(CAP, CAP - PROFILE_LIMIT, -1)]


def test_instructions_too_large_to_keep_are_read_as_before(engine):
    long = "always answer in the register of a formal letter " * 150  # ~7,500 characters
    for i in range(5):
        instruct(engine, f"{i} {long}", f"letter{i}")
    assert len(standing(engine, max_tokens=16_000)) == 5
    reads = instruction_reads(engine)
    assert len(reads) == 1 and "updated_at >= ?" in reads[0]
    kept = standing(engine, max_tokens=16_000)
    assert [text[:2] for text in kept] == ["4 ", "3 ", "2 ", "1 ", "0 "]


def test_expired_instructions_do_not_count_towards_what_is_kept(engine, clock):
    soon = clock.now + timedelta(minutes=5)
    for i in range(CAP + 10):
        expiry = {"expires_at": soon} if i < 20 else {}
        instruct(engine, f"rule number {i}", f"rule{i}", **expiry)
    clock.advance(minutes=10)  # 20 gone: CAP - 10 left, few enough to keep
    assert len(standing(engine)) == PROFILE_LIMIT
    assert instruction_reads(engine) == []
