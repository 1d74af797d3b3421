"""A fact is not injected beside the stored turn it was learnt from (retrieval's
``_said_once``): the rule alone, on ranked candidates."""

from datetime import UTC, datetime

from engram.models import Memory, MemoryType
from engram.retrieval import _Candidate, _Outcome, _said_once

T = datetime(2026, 1, 1, tzinfo=UTC)


def memory(key: str, owner: str = "k1", **metadata: str) -> Memory:
    return Memory(
        id="m-" + key,
        api_key_id=owner,
        session_id="s1",
        type=MemoryType.EPISODIC if key.startswith("turn:") else MemoryType.FACTUAL,
        key=key,
        content=key,
        metadata=metadata,
        created_at=T,
        updated_at=T,
        expires_at=None,
    )


def turn(key: str, owner: str = "k1") -> Memory:
    return memory(key, owner, kind="turn", role="user", speaker="user")


def keys(outcome: _Outcome) -> list[str]:
    return [c.memory.key for c in outcome.ranked]


def ranked(*memories: Memory) -> _Outcome:
    return _Outcome(ranked=[_Candidate(m, "hybrid") for m in memories])


def test_the_fact_gives_its_place_when_its_turn_is_shown():
    outcome = ranked(
        memory("preference:tea", turn="turn:r1:0"),
        turn("turn:r1:0"),
        memory("preference:jazz", turn="turn:r2:0"),
        turn("turn:r3:0"),
    )
    _said_once(outcome, limit=2)
    assert keys(outcome) == ["turn:r1:0", "preference:jazz", "turn:r3:0"]


def test_a_fact_stays_when_its_turn_would_not_be_injected():
    outcome = ranked(
        memory("preference:tea", turn="turn:r1:0"),
        turn("turn:r9:0"),
        turn("turn:r1:0"),
    )
    _said_once(outcome, limit=2)
    assert keys(outcome) == ["preference:tea", "turn:r9:0", "turn:r1:0"]


def test_only_the_same_owners_turn_counts():
    outcome = ranked(memory("preference:tea", turn="turn:r1:0"), turn("turn:r1:0", owner="k2"))
    _said_once(outcome, limit=5)
    assert keys(outcome) == ["preference:tea", "turn:r1:0"]


def test_facts_without_a_turn_and_turns_themselves_are_kept():
    outcome = ranked(turn("turn:r1:0"), memory("preference:tea"), turn("turn:r2:0"))
    _said_once(outcome, limit=5)
    assert keys(outcome) == ["turn:r1:0", "preference:tea", "turn:r2:0"]


def test_a_turn_in_the_callers_own_metadata_may_be_any_json_value():
    odd = [memory(f"fact:{i}") for i in range(3)]
    for fact, value in zip(odd, (["turn:r1:0"], {"key": "turn:r1:0"}, 7), strict=True):
        fact.metadata["turn"] = value
    outcome = ranked(turn("turn:r1:0"), *odd)
    _said_once(outcome, limit=5)
    assert keys(outcome) == ["turn:r1:0", "fact:0", "fact:1", "fact:2"]
