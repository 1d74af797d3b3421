"""An import costs a handful of round trips per batch, whatever its size (issue 33: four
to six an item, 2,002 for 500, 40 s at 20 ms a round trip)."""

from __future__ import annotations

from engram.domain.models import MemoryImport, MemoryQuery
from tests.support.statements import round_trips


def batch(n: int, start: int = 0, owner: str = "k1") -> list[MemoryImport]:
    return [
        MemoryImport(
            api_key_id=owner,
            key=f"m{start + i}",
            content=f"memory number {start + i} about the garden",
            session_id=f"s{i % 3}",
            metadata={"kind": "turn"} if i % 2 else {},
        )
        for i in range(n)
    ]


def test_an_import_costs_the_same_round_trips_at_10_or_400_items(engine):
    own = engine.memories.store.db
    small = round_trips(own, lambda: engine.memories.upsert_many(batch(10)))
    large = round_trips(own, lambda: engine.memories.upsert_many(batch(400, start=100)))
    # The keys looked up, the version, the rows, the sessions read, their contexts written,
    # the commit (against a server, a statement batch is one round trip).
    assert large == small <= 8, (small, large)
    assert engine.memories.list_page(MemoryQuery(api_key_id="k1", limit=1)).total == 410


def test_a_batch_written_together_reads_as_one_written_item_by_item(engine, db):
    items = batch(12)
    engine.memories.upsert_many(items)
    together = db.query("SELECT key, context FROM memories ORDER BY seq")
    db.execute("DELETE FROM memories")
    for item in items:
        engine.memories.upsert(item)
    one_by_one = db.query("SELECT key, context FROM memories ORDER BY seq")
    assert together == one_by_one


def test_keys_stored_or_repeated_in_the_batch_are_updated_as_before(engine):
    engine.memories.upsert_many(batch(3))
    again = batch(3)
    again[0] = again[0].model_copy(update={"content": "changed"})
    again.append(again[1].model_copy(update={"content": "said twice"}))
    outcomes = engine.memories.upsert_many([*again, *batch(2, start=3)])
    assert [o.created for o in outcomes] == [False, False, False, False, True, True]
    contents = {
        m.key: m.content for m in engine.memories.list_page(MemoryQuery(api_key_id="k1")).data
    }
    assert contents["m0"] == "changed" and contents["m1"] == "said twice"
    assert len(contents) == 5
