import copy
from datetime import UTC, datetime

import pytest

from engram import format_memories, inject, provider_supports_system
from engram.domain.models import Memory, MemoryType

T = datetime(2026, 1, 1, tzinfo=UTC)


def memory(content: str, category: str | None = None) -> Memory:
    return Memory(
        id="m-" + content,
        api_key_id="k1",
        session_id=None,
        type=MemoryType.FACTUAL,
        key="k:" + content,
        content=content,
        metadata={"category": category} if category else {},
        created_at=T,
        updated_at=T,
        expires_at=None,
    )


MEMS = [memory("TypeScript", "preference"), memory("deploys on Fridays")]
REQUEST = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Which language?"},
    ],
}


def test_format_is_header_then_one_memory_per_line():
    assert format_memories(MEMS) == (
        "Memory context:\n- preference: TypeScript\n- deploys on Fridays"
    )


def test_system_message_goes_before_existing_system_message():
    out = inject(REQUEST, MEMS, "openai")
    assert out["messages"][0]["role"] == "system"
    assert out["messages"][0]["content"].startswith("Memory context:")
    assert out["messages"][1:] == REQUEST["messages"]


@pytest.mark.parametrize(
    "provider", ["o1", "O1-mini", "o1-preview", "glm", "GLMT", "glm-cn", "zai", "qianfan"]
)
def test_providers_without_system_role_get_a_first_user_message(provider):
    out = inject(REQUEST, MEMS, provider)
    assert out["messages"][0] == {"role": "user", "content": format_memories(MEMS)}
    assert out["messages"][1:] == REQUEST["messages"]
    assert not provider_supports_system(provider)


@pytest.mark.parametrize("provider", [None, "", "anthropic", "some-new-provider"])
def test_unknown_providers_accept_system(provider):
    assert provider_supports_system(provider)
    assert inject(REQUEST, MEMS, provider)["messages"][0]["role"] == "system"


def test_no_memories_returns_the_same_request():
    assert inject(REQUEST, [], "openai") == REQUEST


def test_never_mutates_its_input():
    before = copy.deepcopy(REQUEST)
    for provider, cache_safe in [("openai", False), ("openai", True), ("o1", False)]:
        out = inject(REQUEST, MEMS, provider, cache_safe=cache_safe)
        assert before == REQUEST
        out["messages"][0]["content"] = "changed"
        out["messages"].append({"role": "user", "content": "x"})
        assert before == REQUEST


def test_cache_safe_mode_appends_to_the_first_system_message():
    out = inject(REQUEST, MEMS, "openai", cache_safe=True)
    assert len(out["messages"]) == len(REQUEST["messages"])
    first = out["messages"][0]["content"]
    assert first.startswith("You are terse.")  # the cached prefix is unchanged
    assert first.endswith(format_memories(MEMS))


def test_cache_safe_mode_without_a_system_message_adds_one():
    request = {"messages": [{"role": "user", "content": "hi"}]}
    out = inject(request, MEMS, "openai", cache_safe=True)
    assert [m["role"] for m in out["messages"]] == ["system", "user"]


def test_cache_safe_mode_with_content_parts():
    request = {"messages": [{"role": "system", "content": [{"type": "text", "text": "Be kind"}]}]}
    out = inject(request, MEMS, "openai", cache_safe=True)
    parts = out["messages"][0]["content"]
    assert parts[0] == {"type": "text", "text": "Be kind"}
    assert parts[1]["text"].startswith("Memory context:")
    assert request["messages"][0]["content"] == [{"type": "text", "text": "Be kind"}]


def test_request_without_messages_is_returned_unchanged():
    assert inject({"model": "x"}, MEMS, "openai") == {"model": "x"}


def retrieved(content: str, tier: str, **metadata: object):
    from engram.domain.models import RetrievedMemory

    base = memory(content).model_dump(exclude={"profile"})
    return RetrievedMemory(**{**base, "metadata": metadata}, score=1.0, tier=tier, tokens=3)


def test_the_block_says_what_is_profile_and_what_was_recalled_with_dates():
    block = format_memories(
        [
            retrieved("is vegetarian", "profile", category="health"),
            retrieved("adopted a rescue cat", "hybrid", category="pet", when="2026-11-21"),
            retrieved("a trip", "vector", when="next week"),  # not a day: no date shown
        ]
    )
    assert block.split("\n") == [
        "Memory context:",
        "About the user (always applies):",
        "- health: is vegetarian",
        "Recalled for this message:",
        "- pet on 2026-11-21: adopted a rescue cat",
        "- a trip",
    ]
    # Without a profile there are no headings; a profile alone has no recall heading.
    assert format_memories([retrieved("a trip", "vector")]) == "Memory context:\n- a trip"
    assert format_memories([retrieved("x", "profile", pinned=True)]).split("\n") == [
        "Memory context:",
        "About the user (always applies):",
        "- x",
    ]
