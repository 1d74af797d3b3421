"""A memory's neighbours come from its own stream: stored turns neighbour turns, other
memories (facts learnt from those turns, API writes) each other. The facts a turn
teaches are written into its session beside it; as neighbours they pushed the
conversation out of the turns' contexts (LoCoMo through the proxy: R@10 0.787, 0.801
with streams)."""

from __future__ import annotations

import numpy as np
import pytest

from engram.domain.models import MemoryCreate, MemoryUpdate, OwnerFilter

TURNS = [
    "we went camping by the lake last summer",
    "the kids loved roasting marshmallows",
    "my daughter caught her first fish there",
    "we want to go back in August",
]


def write(engine, content, turn, session="s1", **metadata):
    kind = {"kind": "turn", "role": "user"} if turn else {"category": "event"}
    return engine.memories.create(
        MemoryCreate(api_key_id="k1", session_id=session, content=content, metadata=kind | metadata)
    )


@pytest.fixture
def conversation(engine):
    """Each turn followed by the fact learnt from it, as the proxy writes them."""
    written = []
    for n, text in enumerate(TURNS):
        written.append(write(engine, text, turn=True))
        written.append(write(engine, f"fact number {n} learnt here", turn=False))
    return written


def context(db, memory) -> str:
    return str(db.scalar("SELECT context FROM memories WHERE id = ?", (memory.id,)))


def test_a_turns_context_holds_turns_and_a_facts_holds_facts(conversation, db):
    second_turn, second_fact = conversation[2], conversation[3]
    assert TURNS[0] in context(db, second_turn) and TURNS[2] in context(db, second_turn)
    assert "learnt here" not in context(db, second_turn)
    assert "fact number 0" in context(db, second_fact) and "fact number 2" in context(
        db, second_fact
    )
    assert not any(turn in context(db, second_fact) for turn in TURNS)


def test_streams_hold_through_update_and_delete(engine, conversation, db):
    first_turn, third_turn = conversation[0], conversation[4]
    engine.memories.update(conversation[2].id, MemoryUpdate(content="we swam every morning"))
    assert "we swam every morning" in context(db, first_turn)
    engine.memories.delete(conversation[2].id)
    assert "we swam" not in context(db, first_turn) and TURNS[2] in context(db, first_turn)
    assert "learnt here" not in context(db, third_turn)
    # A fact turned into a turn by its metadata moves stream: both are refreshed.
    engine.memories.update(conversation[3].id, MemoryUpdate(metadata={"kind": "turn"}))
    assert "fact number 1 learnt here" in context(db, third_turn)
    assert "fact number 1" not in context(db, conversation[5])


def test_a_turns_vector_is_smoothed_with_turns_only(engine, conversation, db):
    engine.vectors.reindex()
    raw = {
        r["id"]: np.frombuffer(r["embedding"], dtype=np.float32)
        for r in db.query("SELECT id, embedding FROM memories")
    }
    first_turn, first_fact, second_turn = conversation[0], conversation[1], conversation[2]
    dim = len(raw[first_turn.id])
    tier = engine.vectors.libsql_tier(dim)
    query = raw[first_turn.id] / np.linalg.norm(raw[first_turn.id])
    scores = tier.dense(query, OwnerFilter(("k1",)), engine.now_ms(), 0)
    got = float(scores.sims[scores.position[first_turn.id]])

    def smoothed_with(neighbour: str) -> float:
        v = raw[first_turn.id] + 0.5 * raw[neighbour]
        return float(v @ query / np.linalg.norm(v))

    assert got == pytest.approx(smoothed_with(second_turn.id), abs=1e-5)
    assert got != pytest.approx(smoothed_with(first_fact.id), abs=1e-5)
