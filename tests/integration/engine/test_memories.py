import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

import engram
from engram import ConflictError
from engram.domain.models import MemoryCreate, MemoryImport, MemoryQuery, MemoryType, MemoryUpdate


def create(engine, content, owner="k1", **kw):
    return engine.memories.create(MemoryCreate(api_key_id=owner, content=content, **kw))


def count_rows(db):
    return db.scalar("SELECT count(*) FROM memories")


def fts_ids(db, word):
    rows = db.query(
        "SELECT m.id FROM memory_fts JOIN memories m ON m.seq = memory_fts.rowid"
        " WHERE memory_fts MATCH ?",
        (f'"{word}"',),
    )
    return {r["id"] for r in rows}


def test_create_then_get(engine, clock):
    memory = create(engine, "Uses Postgres", key="decision:pg", session_id="s1")
    assert memory.created_at == memory.updated_at == clock.now
    assert engine.memories.get(memory.id) == memory
    assert engine.memories.get(memory.id, "k1") == memory


def test_upsert_by_key_updates_in_place_and_merges_metadata_shallowly(engine, clock, db):
    first = create(engine, "TypeScript", key="preference:ts", metadata={"a": 1, "nested": {"x": 1}})
    clock.advance(minutes=5)
    second = create(
        engine,
        "TypeScript, strictly",
        key="preference:ts",
        type=MemoryType.EPISODIC,
        metadata={"b": 2, "nested": {"y": 2}},
    )
    assert count_rows(db) == 1
    assert second.id == first.id
    assert second.created_at == first.created_at
    assert second.updated_at == clock.now
    assert second.content == "TypeScript, strictly"
    assert second.type is MemoryType.EPISODIC
    assert second.metadata == {"a": 1, "b": 2, "nested": {"y": 2}}
    assert engine.memories.get(first.id) == second


def test_upsert_never_duplicates(engine, db):
    for _ in range(5):
        create(engine, "same fact", key="k:same")
        create(engine, "no key given")
    assert count_rows(db) == 2


# One racer: its own process and connection, as another server process or Lambda
# instance would be. (Threads of one process would not do: the libsql binding keeps the
# GIL while it waits on a lock, so a second connection in the same process waits out
# its busy timeout behind a holder that cannot run.)
_RACER = """
import sys
from engram import open_engine
from engram.config import Config
from engram.domain.models import MemoryCreate

url, name, data = sys.argv[1:4]
engine = open_engine(Config(db_url=url, data_dir=data, lazy_embedding=True), jobs="manual")
try:
    for n in range(40):
        engine.memories.create(
            MemoryCreate(api_key_id="k1", content=f"{name} says {n}", key=f"race:{n % 10}")
        )
finally:
    engine.close()
"""


def test_upserts_of_the_same_keys_racing_from_two_processes_never_duplicate(
    engine, config, db, tmp_path
):
    """Two processes (two connections: on a file or a server) upsert the same keys at
    once: one memory per key, holding one of the racers' contents, every call answered."""
    env = {**os.environ, "PYTHONPATH": str(Path(engram.__file__).parents[1])}
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", _RACER, config.db_url, name, str(tmp_path / name)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("one", "two")
    ]
    for racer in racers:
        _, err = racer.communicate(timeout=180)
        assert racer.returncode == 0, err[-2000:]
    rows = db.query("SELECT key, content FROM memories WHERE api_key_id = 'k1' ORDER BY key")
    assert [r["key"] for r in rows] == [f"race:{n}" for n in range(10)]
    assert all(r["content"].split(" says ")[0] in {"one", "two"} for r in rows)


def test_the_same_key_under_two_owners_is_two_memories(engine):
    a = create(engine, "A's fact", key="shared:key", owner="k1")
    b = create(engine, "B's fact", key="shared:key", owner="k2")
    assert a.id != b.id
    assert engine.memories.get(a.id).content == "A's fact"


def test_update_changes_given_fields_only(engine, clock):
    memory = create(engine, "old text", key="k:a", metadata={"m": 1}, session_id="s")
    clock.advance(seconds=1)
    updated = engine.memories.update(memory.id, MemoryUpdate(content="new text", metadata={"n": 2}))
    assert updated.content == "new text"
    assert updated.metadata == {"n": 2}  # replaced, not merged
    assert (updated.key, updated.session_id, updated.type) == ("k:a", "s", memory.type)
    assert updated.updated_at == clock.now


def test_update_to_a_taken_key_is_a_conflict(engine):
    create(engine, "one", key="k:one")
    two = create(engine, "two", key="k:two")
    with pytest.raises(ConflictError) as info:
        engine.memories.update(two.id, MemoryUpdate(key="k:one"))
    assert info.value.field == "key"
    assert engine.memories.get(two.id).key == "k:two"


def test_update_and_delete_of_missing_or_foreign_ids(engine):
    memory = create(engine, "mine", owner="k1")
    assert engine.memories.update("nope", MemoryUpdate(content="x")) is None
    assert engine.memories.update(memory.id, MemoryUpdate(content="x"), api_key_id="k2") is None
    assert engine.memories.get(memory.id, "k2") is None
    assert engine.memories.delete(memory.id, "k2") is False
    assert engine.memories.get(memory.id).content == "mine"
    assert engine.memories.delete(memory.id, "k1") is True
    assert engine.memories.delete(memory.id, "k1") is False
    assert engine.memories.get(memory.id) is None


def test_fts_stays_in_sync_after_update_and_delete(engine, db):
    memory = create(engine, "I enjoy kayaking", key="hobby:water")
    assert fts_ids(db, "kayaking") == {memory.id}
    engine.memories.update(memory.id, MemoryUpdate(content="I enjoy climbing"))
    assert fts_ids(db, "kayaking") == set()
    assert fts_ids(db, "climbing") == {memory.id}
    engine.memories.update(memory.id, MemoryUpdate(key="sport:rock"))
    assert fts_ids(db, "rock") == {memory.id}
    assert fts_ids(db, "water") == set()
    engine.memories.delete(memory.id)
    assert fts_ids(db, "climbing") == set()
    # FTS5 raises "database disk image is malformed" if the index and the rows disagree.
    db.execute("INSERT INTO memory_fts(memory_fts) VALUES ('integrity-check')")


def test_expired_memories_are_never_returned(engine, clock):
    memory = create(engine, "temporary note", expires_at=clock.now + timedelta(hours=1))
    assert engine.memories.get(memory.id) is not None
    clock.advance(hours=2)
    assert engine.memories.get(memory.id) is None
    assert engine.memories.list_page(MemoryQuery()).total == 0
    assert engine.memories.stats().total == 0


def test_update_can_clear_an_expiry(engine, clock):
    memory = create(engine, "keep me", expires_at=clock.now + timedelta(hours=1))
    engine.memories.update(memory.id, MemoryUpdate(expires_at=None))
    clock.advance(days=3)
    assert engine.memories.get(memory.id).expires_at is None


def test_list_filters_paging_and_counts(engine, clock):
    for i in range(5):
        clock.advance(seconds=1)
        create(engine, f"fact {i} 100%_done", key=f"f:{i}", session_id="s1" if i < 3 else "s2")
    create(engine, "an event", key="e:1", type=MemoryType.EPISODIC)
    create(engine, "other owner", owner="k2")

    page = engine.memories.list_page(MemoryQuery(api_key_id="k1", limit=2))
    assert page.total == 6
    assert page.by_type == {"factual": 5, "episodic": 1}
    assert [m.content for m in page.data] == ["an event", "fact 4 100%_done"]

    second = engine.memories.list_page(MemoryQuery(api_key_id="k1", limit=2, page=2))
    assert [m.key for m in second.data] == ["f:3", "f:2"]
    assert (second.page, second.offset) == (2, 2)

    by_offset = engine.memories.list_page(MemoryQuery(api_key_id="k1", limit=2, page=3, offset=1))
    assert [m.key for m in by_offset.data] == ["f:4", "f:3"]

    typed = engine.memories.list_page(MemoryQuery(api_key_id="k1", type=MemoryType.EPISODIC))
    assert (typed.total, typed.by_type) == (1, {"factual": 5, "episodic": 1})

    session = engine.memories.list_page(MemoryQuery(session_id="s2"))
    assert {m.key for m in session.data} == {"f:3", "f:4"}

    assert engine.memories.list_page(MemoryQuery(q="100%_")).total == 5
    assert engine.memories.list_page(MemoryQuery(q="0%")).total == 5
    assert engine.memories.list_page(MemoryQuery(q="_d")).total == 5
    assert engine.memories.list_page(MemoryQuery(q="%x")).total == 0
    assert engine.memories.list_page(MemoryQuery(q="EVENT")).total == 1
    assert engine.memories.list_page(MemoryQuery()).total == 7


def test_stats_counts_tokens_as_ceil_len_over_4(engine):
    create(engine, "abcde")  # 2 tokens
    create(engine, "abcd")  # 1 token
    create(engine, "x" * 9, owner="k2")  # 3 tokens
    assert engine.memories.stats().model_dump() == {
        "total": 3,
        "tokensUsed": 6,
        "hitRate": 0.0,
        "retrievals": 0,
    }
    assert engine.memories.stats("k1").tokens_used == 3


def test_import_keeps_identity_and_times_and_is_idempotent(engine, clock, db):
    item = MemoryImport(
        id="0b6f3c1e-0000-4000-8000-000000000001",
        api_key_id="k1",
        key="k:imported",
        content="imported fact",
        created_at=clock.now - timedelta(days=3),
        updated_at=clock.now - timedelta(days=2),
    )
    first = engine.memories.upsert(item)
    again = engine.memories.upsert(item)
    assert first.created and not again.created and not again.content_changed
    stored = engine.memories.get(item.id)
    assert (stored.created_at, stored.updated_at) == (item.created_at, item.updated_at)
    assert count_rows(db) == 1


def test_import_of_an_id_owned_elsewhere_is_a_conflict(engine, db):
    existing = create(engine, "mine", owner="k1")
    with pytest.raises(ConflictError):
        engine.memories.upsert(
            MemoryImport(id=existing.id, api_key_id="k2", key="other", content="theirs")
        )
    assert count_rows(db) == 1


def test_batch_upsert_is_all_or_nothing(engine, db):
    existing = create(engine, "mine", owner="k1")
    items = [
        MemoryImport(api_key_id="k2", key="a", content="fine"),
        MemoryImport(id=existing.id, api_key_id="k2", key="b", content="clash"),
    ]
    with pytest.raises(ConflictError):
        engine.memories.upsert_many(items)
    assert count_rows(db) == 1


def test_extract_and_store_upserts_facts_with_metadata(engine, clock, db):
    text = "I prefer TypeScript. I'll use Postgres for this project."
    outcomes = engine.memories.extract_and_store("k1", text, session_id="s1")
    assert [o.memory.key for o in outcomes] == [
        "preference:typescript",
        "decision:postgres_for_this_project",
    ]
    assert outcomes[0].memory.metadata == {
        "category": "preference",
        "extractedAt": "2026-11-30T12:00:00Z",
        "source": "user",
        "object": "typescript",
        "subject": "programming_language",
    }
    again = engine.memories.extract_and_store("k1", text, session_id="s1")
    assert [o.created for o in again] == [False, False]
    assert count_rows(db) == 2


def test_content_change_marks_the_row_for_reindex(engine, db):
    memory = create(engine, "v1", key="k:v")
    db.execute("UPDATE memories SET needs_reindex = 0")
    create(engine, "v1", key="k:v")
    assert db.scalar("SELECT needs_reindex FROM memories") == 0
    create(engine, "v2", key="k:v")
    assert db.scalar("SELECT needs_reindex FROM memories") == 1
    db.execute("UPDATE memories SET needs_reindex = 0")
    engine.memories.update(memory.id, MemoryUpdate(content="v3"))
    assert db.scalar("SELECT needs_reindex FROM memories") == 1
