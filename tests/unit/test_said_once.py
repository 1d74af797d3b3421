"""A fact is not injected beside the stored turn it was learnt from: the rule of
retrieval's budget walk (``fit_recall``), on ranked candidates."""

from datetime import UTC, datetime

from engram.app.tiers import Candidate, fit_profile, fit_recall
from engram.domain.models import Memory, MemoryType

T = datetime(2026, 1, 1, tzinfo=UTC)


def memory(key: str, owner: str = "k1", content: str | None = None, **metadata: object) -> Memory:
    return Memory(
        id="m-" + key,
        api_key_id=owner,
        session_id="s1",
        type=MemoryType.EPISODIC if key.startswith("turn:") else MemoryType.FACTUAL,
        key=key,
        content=content or key,
        metadata=metadata,
        created_at=T,
        updated_at=T,
        expires_at=None,
    )


def turn(key: str, owner: str = "k1", content: str | None = None) -> Memory:
    return memory(key, owner, content, kind="turn", role="user", speaker="user")


def kept(*memories: Memory, limit: int = 10, budget: int = 10_000) -> list[str]:
    ranked = [Candidate(m, "hybrid") for m in memories]
    results, _ = fit_recall(ranked, budget, limit)
    return [c.memory.key for c, _ in results]


def test_the_fact_gives_its_place_when_its_turn_is_kept():
    fact = memory("preference:tea", turn="turn:r1:0")
    other = memory("preference:jazz", turn="turn:r2:0")
    assert kept(fact, turn("turn:r1:0"), other, turn("turn:r3:0"), limit=2) == [
        "turn:r1:0",
        "preference:jazz",
    ]


def test_a_fact_stays_when_its_turn_is_not_kept():
    fact = memory("preference:tea", turn="turn:r1:0")
    assert kept(fact, turn("turn:r9:0"), turn("turn:r1:0"), limit=2) == [
        "preference:tea",
        "turn:r9:0",
    ]


def test_a_turn_too_long_for_the_budget_does_not_displace_its_fact():
    fact = memory("preference:tea", turn="turn:r1:0")
    long_turn = turn("turn:r1:0", content="tea " * 2000)
    dog = memory("pet:dog", content="has a dog")
    assert kept(fact, long_turn, dog, budget=100) == ["preference:tea", "pet:dog"]


def test_the_profile_keeps_its_order_within_its_budget():
    """The profile is fitted on its own: what does not fit is skipped, what follows
    and fits still goes in, and no turn is involved."""
    rules = [
        Candidate(memory("instruction:length", content="keep answers short"), "profile"),
        Candidate(memory("identity:bio", content="word " * 400), "profile"),
        Candidate(memory("health:diet", content="is vegetarian"), "profile"),
    ]
    chosen, used = fit_profile(rules, 20)
    assert [c.memory.key for c, _ in chosen] == ["instruction:length", "health:diet"]
    assert used == sum(tokens for _, tokens in chosen) <= 20
    assert fit_profile(rules, 0) == ([], 0)


def test_only_the_same_owners_turn_counts():
    fact = memory("preference:tea", turn="turn:r1:0")
    assert kept(fact, turn("turn:r1:0", owner="k2")) == ["preference:tea", "turn:r1:0"]


def test_facts_without_a_turn_and_turns_themselves_are_kept():
    assert kept(turn("turn:r1:0"), memory("preference:tea"), turn("turn:r2:0")) == [
        "turn:r1:0",
        "preference:tea",
        "turn:r2:0",
    ]


def test_a_turn_in_the_callers_own_metadata_may_be_any_json_value():
    odd = [
        memory(f"fact:{i}", turn=value)
        for i, value in enumerate((["turn:r1:0"], {"key": "turn:r1:0"}, 7))
    ]
    assert kept(turn("turn:r1:0"), *odd) == ["turn:r1:0", "fact:0", "fact:1", "fact:2"]
