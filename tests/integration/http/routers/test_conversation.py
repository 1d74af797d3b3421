"""Conversation memory (storeConversation) through the chat proxy, against a real
upstream server on 127.0.0.1 and a real libSQL file."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from engram import MemorySettingsUpdate
from engram.app.chat import ChatService
from engram.domain.models import (
    MAX_CONTENT_CHARS,
    ApiKeyCreate,
    MemoryForget,
    MemoryQuery,
    RetrievalRequest,
)
from tests.support.http import proxy_app, upstream_config
from tests.support.upstream_stub import StubUpstream

SAID = "Last week I told my sister Ana that the blue bicycle needs new brakes"


@pytest.fixture
def stub():
    with StubUpstream(reply="Sounds like a plan for the bicycle.") as upstream:
        yield upstream


@pytest.fixture
def config(config, stub):
    return upstream_config(config, stub)


@pytest.fixture
def key(engine):
    return engine.keys.create(ApiKeyCreate(name="conversation"))


@pytest.fixture
def chat(engine, key):
    engine.settings.update(MemorySettingsUpdate(enabled=True, store_conversation=True))
    with TestClient(proxy_app(engine), headers={"Authorization": f"Bearer {key.secret}"}) as client:
        yield client


def say(client, text, session="trip", name=None, **headers):
    message = {"role": "user", "content": text} | ({"name": name} if name else {})
    body = {"model": "gpt-4o", "messages": [message]}
    return client.post(
        "/v1/chat/completions", json=body, headers={"x-engram-session-id": session, **headers}
    )


def turns(engine, owner):
    data = engine.memories.list_page(MemoryQuery(api_key_id=owner)).data
    return [m for m in data if m.metadata.get("kind") == "turn"]


def test_turns_are_stored_with_role_speaker_time_and_session(chat, engine, key, clock, stub):
    asked_at = clock.now
    assert say(chat, SAID, name="Rosa").status_code == 200
    clock.advance(minutes=5)  # the worker runs later; the turn keeps the chat's time
    assert engine.queues.extraction.drain() == 1
    (turn,) = turns(engine, key.id)
    assert turn.content == SAID
    assert turn.type == "episodic" and turn.session_id == "trip"
    assert turn.metadata == {"kind": "turn", "role": "user", "speaker": "Rosa"}
    assert turn.created_at == asked_at
    # The assistant's words are memory only when extractFrom is "both".
    assert all(t.metadata["role"] == "user" for t in turns(engine, key.id))


def test_a_redelivered_job_stores_each_turn_once(chat, engine, key, clock):
    body = {"messages": [{"role": "user", "content": SAID}]}
    job = ChatService.extraction_job(
        key.id, body, "", "chat-redelivered", "trip", conversation=True, at=clock.now
    )
    engine.jobs.handle(job)
    engine.jobs.handle(job)  # SQS delivers it again
    assert len(turns(engine, key.id)) == 1


def test_on_with_memory_unless_turned_off(engine, key, stub):
    """Turning memory on stores the turns too; storeConversation false stores facts only."""
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    assert engine.settings.get().store_conversation
    with TestClient(proxy_app(engine), headers={"Authorization": f"Bearer {key.secret}"}) as client:
        say(client, SAID + ". I prefer tea.")
        engine.queues.extraction.drain()
        assert [t.content for t in turns(engine, key.id)] == [SAID + ". I prefer tea."]
        engine.settings.update(MemorySettingsUpdate(store_conversation=False))
        say(client, "I prefer green tea in the morning.", session="other")
        engine.queues.extraction.drain()
    assert len(turns(engine, key.id)) == 1
    learnt = engine.memories.list_page(MemoryQuery(api_key_id=key.id)).data
    assert any("green tea" in m.content and m.metadata.get("kind") != "turn" for m in learnt)


def test_a_stored_turn_is_not_injected_beside_itself(chat, engine, key, stub):
    """A client sends the history with each message: the turn stored from the first
    request is in the second one's messages, and is not recalled into it as well; a
    request without that history gets it."""
    say(chat, SAID)
    engine.queues.extraction.drain()
    history = [
        {"role": "user", "content": SAID},
        {"role": "assistant", "content": stub.reply},
        {"role": "user", "content": "What did I say about the bicycle brakes?"},
    ]
    chat.post("/v1/chat/completions", json={"model": "gpt-4o", "messages": history})
    sent = stub.requests[-1]["json"]["messages"]
    assert sum(SAID in str(m["content"]) for m in sent) == 1
    say(chat, "What did I say about the bicycle brakes?", session="later")
    system = stub.requests[-1]["json"]["messages"][0]["content"]
    assert SAID in system


def test_what_was_said_is_found_and_injected_as_said(chat, engine, key, stub):
    say(chat, SAID)
    engine.queues.extraction.drain()
    asked = say(chat, "What did I say about the bicycle?", session="later")
    assert asked.headers["x-engram-memories"] != "0"
    system = stub.requests[-1]["json"]["messages"][0]["content"]
    assert f"- the user said on {engine.clock():%Y-%m-%d}: {SAID}" in system.split("\n")


def test_both_sides_with_extract_from_both(chat, engine, key, stub):
    engine.settings.update(MemorySettingsUpdate(extract_from="both"))
    say(chat, SAID)
    engine.queues.extraction.drain()
    roles = sorted(t.metadata["role"] for t in turns(engine, key.id))
    assert roles == ["assistant", "user"]
    said = {t.metadata["role"]: t.content for t in turns(engine, key.id)}
    assert said["assistant"] == stub.reply


def test_the_answer_is_said_by_the_name_the_client_gives_the_assistant(chat, engine, key, stub):
    """A persona or the other side of a conversation: the assistant's name is that of its
    latest named message in the history; the answer is stored as said by it."""
    engine.settings.update(MemorySettingsUpdate(extract_from="both"))
    history = [
        {"role": "assistant", "content": "Hi, I'm Mel.", "name": "Old"},
        {"role": "user", "content": "Hello!", "name": "Caroline"},
        {"role": "assistant", "content": "How was the trip?", "name": "Melanie"},
        {"role": "assistant", "content": "(typing)"},
        {"role": "user", "content": SAID, "name": "Caroline"},
    ]
    chat.post("/v1/chat/completions", json={"model": "gpt-4o", "messages": history})
    say(chat, "And the weather was lovely.")  # no named assistant: its role stands
    engine.queues.extraction.drain()
    speakers = {
        (t.metadata["role"], t.metadata["speaker"], t.content) for t in turns(engine, key.id)
    }
    assert speakers == {
        ("user", "Caroline", SAID),
        ("assistant", "Melanie", stub.reply),
        ("user", "user", "And the weather was lovely."),
        ("assistant", "assistant", stub.reply),
    }
    asked = say(chat, "What did Melanie answer?", session="later")
    assert asked.headers["x-engram-memories"] != "0"
    system = stub.requests[-1]["json"]["messages"][0]["content"]
    assert "Melanie (the assistant) said on" in system


def test_the_assistants_opening_is_stored_once_with_the_first_exchange(chat, engine, key, stub):
    """A conversation the assistant opens (a greeting, a persona, the other side speaking
    first): no answer through the proxy carried those words, so the first exchange stores
    them; later requests repeat them in their history and store them again never."""
    engine.settings.update(MemorySettingsUpdate(extract_from="both"))
    greeting = {"role": "assistant", "content": "Welcome back! How was Lisbon?", "name": "Mel"}
    blank = {"role": "assistant", "content": "  "}
    first = {"role": "user", "content": SAID, "name": "Caroline"}
    system = {"role": "system", "content": "You are Mel, a travel buddy."}
    messages = [system, greeting, blank, first]
    chat.post("/v1/chat/completions", json={"model": "gpt-4o", "messages": messages})
    reply = {"role": "assistant", "content": stub.reply}
    later = [*messages, reply, {"role": "user", "content": "And the brakes cost 40 euros."}]
    chat.post("/v1/chat/completions", json={"model": "gpt-4o", "messages": later})
    engine.queues.extraction.drain()
    stored = sorted(turns(engine, key.id), key=lambda t: (t.created_at, t.content))
    said = [(t.metadata["role"], t.metadata["speaker"], t.content) for t in stored]
    assert said.count(("assistant", "Mel", greeting["content"])) == 1
    assert ("user", "Caroline", SAID) in said
    assert len(said) == 5  # the greeting, then each request's user turn and answer
    # Stored in the order said: the opening before the user's first message.
    contents = [t.content for t in turns(engine, key.id)]  # newest first
    assert contents.index(greeting["content"]) > contents.index(SAID)


def test_a_greeting_resent_with_every_message_is_stored_once(chat, engine, key, stub):
    """Clients that send no history but a fixed greeting before each message."""
    engine.settings.update(MemorySettingsUpdate(extract_from="both"))
    greeting = {"role": "assistant", "content": "Hi! I'm your travel buddy."}
    for said in (SAID, "And the brakes cost 40 euros."):
        body = {"model": "gpt-4o", "messages": [greeting, {"role": "user", "content": said}]}
        chat.post("/v1/chat/completions", json=body, headers={"x-engram-session-id": "trip"})
    engine.queues.extraction.drain()
    contents = [t.content for t in turns(engine, key.id)]
    assert contents.count(greeting["content"]) == 1
    assert len(contents) == 5  # the greeting, then two user turns and two answers


def test_a_request_continuing_an_answer_reads_only_the_answer(engine, key, clock):
    """Tool results after the user's message: the exchange goes on, so neither the user's
    message nor the opening is read again (both came with the request that began it)."""
    greeting = {"role": "assistant", "content": "Hi! I'm your travel buddy."}
    body = {
        "messages": [
            greeting,
            {"role": "user", "content": SAID},
            {"role": "assistant", "content": None, "tool_calls": []},
            {"role": "tool", "content": "40 euros", "tool_call_id": "t1"},
        ]
    }
    job = ChatService.extraction_job(
        key.id, body, "The brakes cost 40 euros.", "chat-tool", "trip", conversation=True
    )
    assert job is not None
    assert [(t.role, t.text) for t in job.turns] == [("assistant", "The brakes cost 40 euros.")]
    # A system note after the user's message is no continuation: the message is read.
    body["messages"][2:] = [{"role": "system", "content": "Reply briefly."}]
    job = ChatService.extraction_job(key.id, body, "", "chat-note", "trip", conversation=True)
    assert job is not None and [t.text for t in job.turns] == [SAID]


def test_an_opening_in_a_job_is_at_most_what_a_turn_keeps(key):
    long_greeting = {"role": "assistant", "content": "Welcome! " * 20_000}
    body = {"messages": [long_greeting] * 3 + [{"role": "user", "content": SAID}]}
    job = ChatService.extraction_job(key.id, body, "ok", "chat-long", "trip", conversation=True)
    assert job is not None
    openings = [t for t in job.turns if t.role == "assistant"][:-1]
    assert len(openings) == 3 and all(len(t.text) <= MAX_CONTENT_CHARS for t in openings)
    assert len(job.model_dump_json()) < 256 * 1024 - 64 * 1024  # SQS: 256 KiB a message


def test_the_opening_is_not_stored_without_the_assistants_words(chat, engine, key):
    """extractFrom "user": the assistant's words are never memory, its opening included."""
    greeting = {"role": "assistant", "content": "Welcome back! How was Lisbon?"}
    body = {"model": "gpt-4o", "messages": [greeting, {"role": "user", "content": SAID}]}
    chat.post("/v1/chat/completions", json=body)
    engine.queues.extraction.drain()
    assert [t.content for t in turns(engine, key.id)] == [SAID]


def test_a_fact_names_its_turn_and_is_not_injected_beside_it(chat, engine, key, stub):
    say(chat, "I prefer green tea over coffee in the morning.")
    engine.queues.extraction.drain()
    (said,) = turns(engine, key.id)
    everything = engine.memories.list_page(MemoryQuery(api_key_id=key.id)).data
    (fact,) = [m for m in everything if m.metadata.get("kind") != "turn"]
    assert fact.metadata["turn"] == said.key  # learnt from that very turn
    found = engine.retrieval.preview(key.id, RetrievalRequest(query="green tea", limit=5))
    assert [r.id for r in found.results] == [said.id]  # said once, as said
    # A fact from chats without conversation memory names no turn.
    engine.settings.update(MemorySettingsUpdate(store_conversation=False))
    say(chat, "I prefer Vim as my editor.")
    engine.queues.extraction.drain()
    everything = engine.memories.list_page(MemoryQuery(api_key_id=key.id)).data
    vim = [m for m in everything if "Vim" in m.content or "vim" in m.key]
    assert vim and all("turn" not in m.metadata for m in vim)


def test_secrets_in_turns_are_redacted_before_storage(chat, engine, key):
    say(chat, "my github token is ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 keep it safe")
    engine.queues.extraction.drain()
    (turn,) = turns(engine, key.id)
    assert "ghp_A1b2" not in turn.content


def test_retention_and_forgetting_apply_to_turns(chat, engine, key, clock):
    say(chat, SAID)
    engine.queues.extraction.drain()
    found = engine.retrieval.preview(key.id, RetrievalRequest(query="bicycle brakes"))
    assert [m.content for m in found.results] == [SAID]
    clock.advance(days=engine.settings.get().retention_days + 1)
    gone = engine.retrieval.preview(key.id, RetrievalRequest(query="bicycle brakes"))
    assert gone.results == []
    clock.advance(days=-(engine.settings.get().retention_days + 1))
    result = engine.memories.forget(MemoryForget(api_key_id=key.id, session_id="trip"))
    assert result.deleted >= 1 and turns(engine, key.id) == []


def test_other_keys_never_see_the_turns(chat, engine, key):
    say(chat, SAID)
    engine.queues.extraction.drain()
    other = engine.keys.create(ApiKeyCreate(name="other"))
    found = engine.retrieval.preview(other.id, RetrievalRequest(query="bicycle brakes"))
    assert found.results == []
