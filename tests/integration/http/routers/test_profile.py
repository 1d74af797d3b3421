"""The profile through the chat proxy: what the user said about themselves (diet,
allergies, home, family, language, instructions) shapes every later answer, in every
supported language, within its own budget; everything else is recalled only when
relevant. Against a real upstream server on 127.0.0.1 and a real libSQL file."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from engram import MemorySettingsUpdate
from engram.domain.injection import MEMORY_HEADER, PROFILE_HEADING, RECALL_HEADING
from engram.domain.models import ApiKeyCreate, MemoryCreate, MemoryQuery, RetrievalRequest
from tests.support.http import ADMIN_TOKEN, proxy_app, upstream_config
from tests.support.upstream_stub import StubUpstream

# Per language: what a user says about themselves in a first session, then questions of
# a later one that depend on it (diet -> cooking and restaurants, allergies -> recipes
# and medicine, home -> "near me", weather, commute, family -> gifts and weekends).
LANGUAGES = {
    "en": (
        [
            "I'm vegetarian and I live in Lyon.",
            "I am allergic to peanuts.",
            "I have epilepsy.",
            "I have two kids, Sam and Ada.",
            "Always answer in Spanish.",
        ],
        [
            "What should I cook for dinner tonight?",
            "Recommend a restaurant near me",
            "Which painkiller can I take for a headache?",
            "Will it rain this weekend?",
            "Any gift ideas for the holidays?",
            "How long is my commute by bike?",
        ],
    ),
    "id": (
        ["Saya vegetarian dan saya tinggal di Bandung.", "Saya alergi kacang."],
        [
            "Apa yang harus saya masak malam ini?",
            "Rekomendasikan restoran di dekat saya",
            "Bagaimana cuaca akhir pekan ini?",
        ],
    ),
    "tr": (
        ["Ben vejetaryenim ve İzmir'de yaşıyorum.", "Fıstığa alerjim var."],
        [
            "Bu akşam ne pişirmeliyim?",
            "Yakınımda bir restoran önerir misin?",
            "Hafta sonu hava nasıl olacak?",
        ],
    ),
}
UNRELATED = "What is the capital of France?"


@pytest.fixture
def stub():
    with StubUpstream(reply="Noted.") as upstream:
        yield upstream


@pytest.fixture
def config(config, stub):
    return upstream_config(config, stub)


@pytest.fixture
def memory_on(engine):
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    return engine


def client_for(engine, name):
    key = engine.keys.create(ApiKeyCreate(name=name))
    client = TestClient(proxy_app(engine), headers={"Authorization": f"Bearer {key.secret}"})
    return key, client


def say(client, text, session):
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": text}]}
    response = client.post(
        "/v1/chat/completions", json=body, headers={"x-engram-session-id": session}
    )
    assert response.status_code == 200, response.text
    return response


def injected(stub):
    """The memory block the upstream received with the last request, as lines."""
    first = stub.requests[-1]["json"]["messages"][0]
    content = first["content"] if first["role"] == "system" else ""
    return content.split("\n") if content.startswith(MEMORY_HEADER) else []


def sections(lines):
    """(profile lines, recalled lines) of an injected block."""
    if PROFILE_HEADING not in lines:
        return [], lines[1:]
    start = lines.index(PROFILE_HEADING) + 1
    end = lines.index(RECALL_HEADING) if RECALL_HEADING in lines else len(lines)
    return lines[start:end], lines[end + 1 :]


def profile_facts(engine, owner):
    data = engine.memories.list_page(MemoryQuery(api_key_id=owner, limit=100)).data
    return [m for m in data if m.profile]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_what_the_user_said_about_themselves_shapes_every_later_answer(memory_on, stub, language):
    statements, questions = LANGUAGES[language]
    key, client = client_for(memory_on, f"profile-{language}")
    with client:
        for text in statements:
            say(client, text, session="first")
        memory_on.queues.extraction.drain()
        learnt = profile_facts(memory_on, key.id)
        assert len(learnt) >= len(statements)  # every statement taught a profile fact
        for question in [*questions, UNRELATED]:
            say(client, question, session="later")
            profile, _ = sections(injected(stub))
            for fact in learnt:
                assert any(fact.content in line for line in profile), (question, fact.content)
        # A question unrelated to everything remembered gets the profile only.
        profile, recalled = sections(injected(stub))
        assert profile and recalled == []


def test_the_profile_keeps_to_its_budget_and_recall_gets_the_rest(memory_on):
    owner = "k-budget"
    for i in range(12):
        memory_on.memories.create(
            MemoryCreate(
                api_key_id=owner,
                key=f"family-{i}",
                content=f"has a cousin called Person{i} who lives abroad",
                metadata={"category": "family"},
            )
        )
    memory_on.memories.create(
        MemoryCreate(api_key_id=owner, content="The sailing trip to Crete starts in June")
    )
    ask = RetrievalRequest(query="when does the sailing trip start?", max_tokens=120)
    found = memory_on.retrieval.preview(owner, ask.model_copy(update={"profile_tokens": 40}))
    profile = [r for r in found.results if r.tier == "profile"]
    assert profile and found.profile_tokens == sum(r.tokens for r in profile) <= 40
    assert [r.content for r in found.results if r.tier != "profile"] == [
        "The sailing trip to Crete starts in June"
    ]
    assert found.tokens_used == found.profile_tokens + found.recall_tokens <= 120
    assert all(r.reason == "profile: category family" for r in profile)
    off = memory_on.retrieval.preview(owner, ask.model_copy(update={"profile_tokens": 0}))
    assert [r.tier for r in off.results] != [] and "profile" not in {r.tier for r in off.results}


def test_a_profile_fact_relevant_to_the_question_is_injected_once(memory_on):
    owner = "k-once"
    memory_on.memories.create(
        MemoryCreate(api_key_id=owner, content="is vegetarian", metadata={"category": "health"})
    )
    found = memory_on.retrieval.preview(owner, RetrievalRequest(query="is vegetarian food ok"))
    assert [(r.content, r.tier) for r in found.results] == [("is vegetarian", "profile")]


def test_pinning_moves_a_memory_between_the_tiers(memory_on):
    owner = "k-pin"
    trip = memory_on.memories.create(
        MemoryCreate(api_key_id=owner, content="Training for the Berlin marathon in April")
    )
    diet = memory_on.memories.create(
        MemoryCreate(api_key_id=owner, content="is vegetarian", metadata={"category": "health"})
    )

    def tiers():
        found = memory_on.retrieval.preview(owner, RetrievalRequest(query=UNRELATED))
        return {r.content: r.tier for r in found.results}

    assert tiers() == {"is vegetarian": "profile"}  # the trip is not relevant
    assert memory_on.memories.pin(trip.id, True).profile
    assert memory_on.memories.pin(diet.id, False).profile is False
    assert tiers() == {"Training for the Berlin marathon in April": "profile"}
    restored = memory_on.memories.pin(diet.id, None)
    assert restored.profile and "pinned" not in restored.metadata
    assert memory_on.memories.pin(trip.id, True, "another-key") is None  # not theirs


def test_the_assistants_words_and_other_keys_never_make_the_profile(memory_on):
    memory_on.memories.create(
        MemoryCreate(
            api_key_id="k-mine",
            content="lives in Oslo",
            metadata={"category": "home", "source": "assistant"},
        )
    )
    memory_on.memories.create(
        MemoryCreate(api_key_id="k-other", content="lives in Porto", metadata={"category": "home"})
    )
    found = memory_on.retrieval.preview("k-mine", RetrievalRequest(query=UNRELATED))
    assert [r for r in found.results if r.tier == "profile"] == []


def test_pin_over_rest_and_the_profile_flag_on_memories(memory_on):
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with TestClient(proxy_app(memory_on), headers=admin) as client:
        made = client.post(
            "/api/memory", json={"apiKeyId": "k-rest", "content": "Plays the cello on Sundays"}
        ).json()
        assert made["profile"] is False
        pinned = client.put(f"/api/memory/{made['id']}/pin", json={"pinned": True})
        assert pinned.status_code == 200 and pinned.json()["profile"] is True
        assert pinned.json()["metadata"] == {"pinned": True}
        preview = client.post(
            "/api/memory/retrieve-preview", json={"apiKeyId": "k-rest", "query": UNRELATED}
        ).json()
        assert [(r["tier"], r["reason"]) for r in preview["results"]] == [
            ("profile", "profile: pinned")
        ]
        assert preview["profileTokens"] == preview["tokensUsed"] > 0
        assert preview["injection"]["messages"][0]["content"].split("\n")[:3] == [
            MEMORY_HEADER,
            PROFILE_HEADING,
            "- Plays the cello on Sundays",
        ]
        bad = client.put(f"/api/memory/{made['id']}/pin", json={"pinned": "yes"})
        assert bad.status_code == 422
        missing = client.put("/api/memory/nope/pin", json={"pinned": True})
        assert missing.status_code == 404


def test_what_happened_is_recalled_with_its_date_not_profiled(memory_on, stub, clock):
    """A dated fact is an event (or a plan): recalled when relevant, dated in the block;
    the state beside it ("have a dog called Rex") is profile. (Facts alone: with the
    turns stored, the turn would be recalled in the fact's place, as said.)"""
    memory_on.settings.update(MemorySettingsUpdate(store_conversation=False))
    key, client = client_for(memory_on, "events")
    with client:
        say(client, "We adopted a rescue cat last weekend.", session="first")
        say(client, "We have a dog called Rex.", session="first")
        memory_on.queues.extraction.drain()
        facts = memory_on.memories.list_page(MemoryQuery(api_key_id=key.id)).data
        cat = next(m for m in facts if "rescue cat" in m.content and m.metadata.get("category"))
        assert cat.metadata["when"] and cat.profile is False
        assert [m.content for m in facts if m.profile] == ["have a dog called Rex"]
        say(client, UNRELATED, session="later")
        profile, recalled = sections(injected(stub))
        assert profile == ["- pet: have a dog called Rex"] and recalled == []
        say(client, "Any tips for the rescue cat we adopted?", session="later")
        profile, recalled = sections(injected(stub))
        assert f"- pet on {cat.metadata['when']}: {cat.content}" in recalled
