"""The relevance floor: only what is relevant is recalled into a prompt, and the preview
says why when nothing is; the profile (who the user is, standing instructions) goes with
every request."""

from __future__ import annotations

import pytest

from engram import MemorySettingsUpdate
from engram.domain.models import ExtractionJob, JobTurn, RetrievalRequest

FACTS = [
    "I prefer TypeScript.",
    "We'll use Postgres for this project.",
    "I always commit before pushing.",
    "I don't like Python.",
    "We use React and Docker.",
    "My name is Alice and I work at Acme in Berlin.",
    "I love hiking and sci-fi movies.",
    "We can't use GPL-licensed libraries.",
]


@pytest.fixture
def facts(engine):
    for n, text in enumerate(FACTS):
        engine.memories.process_extraction(
            ExtractionJob(
                api_key_id="k1", turns=[JobTurn(role="user", text=text)], request_id=f"r{n}"
            )
        )
    engine.vectors.reindex(max_seconds=30)
    return engine


def injected(engine, query, **kw):
    return engine.retrieval.retrieve("k1", RetrievalRequest(query=query, **kw))


def recalled(result):
    return [r for r in result.results if r.tier != "profile"]


# What the facts above say about who the user is: the profile, injected whatever asked.
PROFILE = {"name is Alice", "works at Acme", "based in Berlin"}


@pytest.mark.parametrize(
    "query",
    [
        "Tell me a joke about penguins",
        "What's the weather like today?",
        "Write a haiku about autumn",
        "How do I boil an egg?",
        "Explain photosynthesis simply",
        "Recommend a good novel",
    ],
)
def test_unrelated_questions_recall_nothing_and_say_why(facts, query):
    result = injected(facts, query)
    assert recalled(result) == [] and result.recall_tokens == 0
    assert {r.content for r in result.results} == PROFILE
    assert result.tokens_used == result.profile_tokens
    assert "nothing relevant" in (result.resolution.reason or "")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Which database should I use?", "use Postgres for this project"),
        ("Which backend language do I dislike?", "dislikes Python"),
        ("Where do I live?", "based in Berlin"),
        ("Can I use this GPL library?", "cannot use GPL-licensed libraries"),
        ("What do I do before pushing?", "always commit before pushing"),
    ],
)
def test_related_questions_find_their_fact(facts, query, expected):
    assert expected in [r.content for r in injected(facts, query).results]


def test_a_name_the_memories_never_mention_means_nothing_is_relevant(facts):
    result = injected(facts, "What did Caroline say about the support group?")
    assert recalled(result) == []
    assert "no memory mentions caroline" in (result.resolution.reason or "")
    known = injected(facts, "What does Alice do at Acme?")
    assert "works at Acme" in [r.content for r in known.results]


def test_the_floor_can_be_turned_off(facts):
    everything = injected(facts, "Tell me a joke about penguins", relevance_floor=0.0)
    assert len(everything.results) >= len(FACTS)
    facts.settings.update(MemorySettingsUpdate(relevance_floor=0.0))
    assert len(injected(facts, "Tell me a joke about penguins").results) >= len(FACTS)


def test_standing_instructions_lead_the_profile_of_every_request(facts):
    facts.memories.process_extraction(
        ExtractionJob(
            api_key_id="k1",
            turns=[JobTurn(role="user", text="Please keep answers under 200 words.")],
            request_id="instr",
        )
    )
    for query in ("Tell me a joke about penguins", "Which database should I use?"):
        results = injected(facts, query).results
        assert results[0].content == "keep answers under 200 words"
        assert (results[0].tier, results[0].reason) == ("profile", "profile: standing instruction")
