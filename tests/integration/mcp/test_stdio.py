"""``engram mcp`` over stdio, driven by the MCP SDK's own client as a subprocess."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from engram import Config, open_engine
from engram.domain.models import ApiKeyCreate, MemoryCreate
from tests.support.mcp import error_text, run, stdio_params, structured


@pytest.fixture
def setup(tmp_path: Path):
    url = f"file:{tmp_path / 'engram.db'}"
    engine = open_engine(Config(db_url=url), jobs="inline")
    yield url, engine, tmp_path / "data"
    engine.close()


def test_tools_are_listed_with_schemas_descriptions_and_annotations(setup):
    url, engine, data = setup
    key = engine.keys.create(ApiKeyCreate(name="a"))

    async def scenario():
        async with Client(stdio_params(url, key.secret, data), mode="legacy") as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in run(scenario)}
    assert set(tools) == {
        "memory_search",
        "memory_add",
        "memory_clear",
        "memory_list",
        "memory_delete",
        "memory_pin",
    }
    hints = {
        name: (t.annotations.read_only_hint, t.annotations.destructive_hint)
        for name, t in tools.items()
    }
    assert hints["memory_search"] == (True, False)
    assert hints["memory_list"] == (True, False)
    assert hints["memory_clear"] == (False, True)
    assert hints["memory_delete"] == (False, True)
    assert hints["memory_pin"] == (False, False)
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False
        assert "apiKeyId" not in str(
            tool.input_schema
        )  # the key is the caller's, never an argument
        assert "$ref" not in str(tool.input_schema)
        assert len(tool.description) > 80
        assert tool.output_schema is not None
    assert tools["memory_search"].input_schema["required"] == ["query"]
    assert tools["memory_add"].input_schema["required"] == ["content"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # the handshake era and 2026-07-28
def test_every_tool_over_stdio(setup, mode):
    url, engine, data = setup
    key = engine.keys.create(ApiKeyCreate(name="a"))

    async def scenario():
        async with Client(stdio_params(url, key.secret, data), mode=mode) as client:
            added = structured(
                await client.call_tool(
                    "memory_add",
                    {
                        "content": "I prefer TypeScript over JavaScript. My key is "
                        "sk-abcdefghijklmnopqrstuvwxyz123456",
                        "key": "language",
                        "type": "procedural",
                        "sessionId": "conv-1",
                        "metadata": {"source": "mcp"},
                    },
                )
            )
            again = structured(
                await client.call_tool(
                    "memory_add", {"content": "I prefer TypeScript everywhere", "key": "language"}
                )
            )
            other = structured(await client.call_tool("memory_add", {"content": "I live in Lyon"}))
            found = structured(
                await client.call_tool("memory_search", {"query": "which language do I prefer?"})
            )
            page1 = structured(await client.call_tool("memory_list", {"limit": 1}))
            page2 = structured(
                await client.call_tool("memory_list", {"limit": 1, "cursor": page1["nextCursor"]})
            )
            dry = structured(await client.call_tool("memory_clear", {"dryRun": True}))
            deleted = structured(
                await client.call_tool("memory_delete", {"id": other["memory"]["id"]})
            )
            gone = error_text(
                await client.call_tool("memory_delete", {"id": other["memory"]["id"]})
            )
            cleared = structured(await client.call_tool("memory_clear", {}))
            empty = structured(await client.call_tool("memory_list", {}))
            return added, again, found, page1, page2, dry, deleted, gone, cleared, empty

    added, again, found, page1, page2, dry, deleted, gone, cleared, empty = run(scenario)
    memory = added["memory"]
    assert added["created"] is True
    assert memory["apiKeyId"] == key.id
    assert memory["type"] == "procedural" and memory["sessionId"] == "conv-1"
    assert "sk-abcdefghijklmnopqrstuvwxyz123456" not in memory["content"]  # redacted
    assert again["created"] is False and again["memory"]["id"] == memory["id"]  # upsert by key
    top = found["results"][0]
    assert top["id"] == memory["id"] and top["content"] == "I prefer TypeScript everywhere"
    assert top["score"] > 0 and top["tier"] in {"keyword", "vector", "hybrid", "recent", "standing"}
    assert page1["total"] == 2 and page1["nextCursor"]
    assert page2["nextCursor"] is None
    assert {page1["memories"][0]["id"], page2["memories"][0]["id"]} == {
        memory["id"],
        deleted["id"],
    }
    assert dry == {
        "matched": 2,
        "deleted": 0,
        "history": 0,
        "byType": dry["byType"],
        "dryRun": True,
    }
    assert deleted["deleted"] is True
    assert "no memory with id" in gone
    assert cleared["deleted"] == 1 and cleared["dryRun"] is False
    assert empty["memories"] == [] and empty["total"] == 0
    assert engine.memories.stats(key.id).total == 0
    assert engine.memories.stats(key.id).retrievals == 1  # memory_search is a counted retrieval


def test_bad_arguments_are_tool_errors_and_the_session_goes_on(setup):
    url, engine, data = setup
    key = engine.keys.create(ApiKeyCreate(name="a"))

    async def scenario():
        async with Client(stdio_params(url, key.secret, data), mode="legacy") as client:
            errors = [
                error_text(await client.call_tool("memory_add", {"content": "   "})),
                error_text(await client.call_tool("memory_add", {"content": "x", "apiKeyId": "k"})),
                error_text(await client.call_tool("memory_search", {"query": "x", "limit": 0})),
                error_text(
                    await client.call_tool("memory_search", {"query": "x", "scope": "session"})
                ),
                error_text(await client.call_tool("memory_list", {"cursor": "not-a-cursor"})),
                error_text(await client.call_tool("memory_clear", {"olderThanDays": "ten"})),
                error_text(await client.call_tool("memory_nope", {})),
            ]
            after = structured(await client.call_tool("memory_add", {"content": "still alive"}))
            return errors, after

    errors, after = run(scenario)
    assert errors[0].startswith("invalid arguments: content")
    assert "apiKeyId" in errors[1]
    assert "limit" in errors[2]
    assert "session" in errors[3].lower()
    assert "cursor" in errors[4]
    assert "olderThanDays" in errors[5]
    assert "unknown tool" in errors[6]
    assert after["memory"]["content"] == "still alive"


def test_a_revoked_key_stops_at_once_and_a_wrong_key_does_not_start(setup):
    url, engine, data = setup
    key = engine.keys.create(ApiKeyCreate(name="a"))

    async def scenario():
        async with Client(stdio_params(url, key.secret, data), mode="legacy") as client:
            before = structured(await client.call_tool("memory_list", {}))
            engine.keys.revoke(key.id)
            after = error_text(await client.call_tool("memory_list", {}))
            return before, after

    before, after = run(scenario)
    assert before["total"] == 0
    assert "invalid or revoked API key" in after

    async def wrong():
        async with Client(stdio_params(url, "egm_wrong", data), mode="legacy") as client:
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017, PT011 - the server exits before the handshake
        run(wrong)


def test_two_keys_never_see_each_others_memories(setup):
    url, engine, data = setup
    alice = engine.keys.create(ApiKeyCreate(name="alice"))
    bob = engine.keys.create(ApiKeyCreate(name="bob"))
    bobs = engine.memories.create(
        MemoryCreate(api_key_id=bob.id, content="Bob's favourite database is Postgres")
    )

    async def scenario():
        async with Client(stdio_params(url, alice.secret, data), mode="legacy") as client:
            return (
                structured(
                    await client.call_tool("memory_search", {"query": "favourite database"})
                ),
                structured(await client.call_tool("memory_list", {})),
                error_text(await client.call_tool("memory_delete", {"id": bobs.id})),
                structured(await client.call_tool("memory_clear", {})),
            )

    found, listed, refused, cleared = run(scenario)
    assert found["results"] == []
    assert listed["total"] == 0
    assert "no memory with id" in refused
    assert cleared["matched"] == 0
    assert engine.memories.get(bobs.id) is not None
