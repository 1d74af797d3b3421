"""MCP over Streamable HTTP at ``/mcp`` of a real ``engram serve`` process, driven by the
MCP SDK's own client with a bearer API key; and the same memories through the REST API
and the chat proxy's injection, both ways."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support.mcp import error_text, http_client, run, structured
from tests.support.server import engram_server
from tests.support.upstream_stub import StubUpstream


@pytest.fixture(scope="module")
def upstream():
    stub = StubUpstream()
    stub.start()
    yield stub
    stub.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory, upstream):
    with engram_server(
        tmp_path_factory.mktemp("mcp-http"), ENGRAM_UPSTREAM_BASE_URL=upstream.url
    ) as running:
        running.settings(enabled=True)
        yield running


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # the handshake era and 2026-07-28
def test_every_tool_over_http(server, mode):
    secret = server.api_key(f"http-{mode}")

    async def scenario():
        async with http_client(f"{server.base}/mcp", secret, mode) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            added = structured(
                await client.call_tool(
                    "memory_add", {"content": "My cat is called Miso", "sessionId": "s1"}
                )
            )
            found = structured(await client.call_tool("memory_search", {"query": "cat name"}))
            listed = structured(await client.call_tool("memory_list", {"sessionId": "s1"}))
            dry = structured(await client.call_tool("memory_clear", {"dryRun": True}))
            bad = error_text(await client.call_tool("memory_add", {"content": 5}))
            deleted = structured(
                await client.call_tool("memory_delete", {"id": added["memory"]["id"]})
            )
            return names, added, found, listed, dry, bad, deleted

    names, added, found, listed, dry, bad, deleted = run(scenario)
    assert len(names) == 6
    assert added["created"] is True
    assert found["results"][0]["id"] == added["memory"]["id"]
    assert listed["total"] == 1
    assert dry["matched"] == 1 and dry["deleted"] == 0
    assert bad.startswith("invalid arguments: content")
    assert deleted == {"id": added["memory"]["id"], "deleted": True}


def test_the_endpoint_is_stateless_json(server):
    """No session id, JSON answers, tools/list without an initialize first (any Lambda
    instance may get any request), and no GET stream to keep open."""
    secret = server.api_key("raw")
    headers = {
        "Authorization": f"Bearer {secret}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}
    response = httpx.post(f"{server.base}/mcp", json=body, headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in response.headers
    assert len(response.json()["result"]["tools"]) == 6
    assert httpx.get(f"{server.base}/mcp", headers=headers).status_code == 405


def test_missing_wrong_and_revoked_keys_get_401(server):
    secret = server.api_key("to-revoke")
    key_id = next(
        k["id"]
        for k in httpx.get(f"{server.base}/api/keys", headers=server.admin).json()
        if k["name"] == "to-revoke"
    )
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    accept = {"Accept": "application/json, text/event-stream"}

    def post(secret: str | None) -> httpx.Response:
        auth = {"Authorization": f"Bearer {secret}"} if secret else {}
        return httpx.post(f"{server.base}/mcp", json=body, headers={**accept, **auth})

    assert post(secret).status_code == 200
    assert post(None).status_code == 401
    wrong = post("egm_wrong")
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
    httpx.delete(f"{server.base}/api/keys/{key_id}", headers=server.admin).raise_for_status()
    assert post(secret).status_code == 401

    async def revoked():
        async with http_client(f"{server.base}/mcp", secret) as client:
            await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK raises on the 401
        run(revoked)


def test_two_keys_never_see_each_others_memories(server):
    alice, bob = server.api_key("alice"), server.api_key("bob")

    async def scenario():
        async with http_client(f"{server.base}/mcp", bob) as client:
            bobs = structured(
                await client.call_tool("memory_add", {"content": "Bob's editor is Helix"})
            )
        async with http_client(f"{server.base}/mcp", alice) as client:
            return bobs, (
                structured(await client.call_tool("memory_search", {"query": "editor Helix"})),
                structured(await client.call_tool("memory_list", {})),
                error_text(await client.call_tool("memory_delete", {"id": bobs["memory"]["id"]})),
                structured(await client.call_tool("memory_clear", {"dryRun": True})),
                error_text(
                    await client.call_tool(
                        "memory_pin", {"id": bobs["memory"]["id"], "pinned": True}
                    )
                ),
            )

    bobs, (found, listed, refused, dry, unpinned) = run(scenario)
    assert found["results"] == []
    assert listed["total"] == 0
    assert "no memory with id" in refused and "no memory with id" in unpinned
    assert dry["matched"] == 0
    still = httpx.get(f"{server.base}/api/memory/{bobs['memory']['id']}", headers=server.admin)
    assert still.status_code == 200 and still.json()["profile"] is False


def test_a_pinned_memory_comes_with_every_search(server):
    secret = server.api_key("pinner")

    async def scenario():
        async with http_client(f"{server.base}/mcp", secret) as client:
            added = structured(
                await client.call_tool("memory_add", {"content": "Takes insulin before meals"})
            )
            memory_id = added["memory"]["id"]
            before = structured(await client.call_tool("memory_search", {"query": "tax forms"}))
            pinned = structured(
                await client.call_tool("memory_pin", {"id": memory_id, "pinned": True})
            )
            after = structured(await client.call_tool("memory_search", {"query": "tax forms"}))
            return before, pinned, after

    before, pinned, after = run(scenario)
    assert before["results"] == []
    assert pinned["profile"] is True and pinned["metadata"]["pinned"] is True
    assert [(r["content"], r["tier"]) for r in after["results"]] == [
        ("Takes insulin before meals", "profile")
    ]


def _chat(server, secret: str, text: str) -> list[dict]:
    response = httpx.post(
        f"{server.base}/v1/chat/completions",
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]},
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    )
    response.raise_for_status()
    return response


def test_mcp_memories_reach_the_chat_proxy_and_rest_and_the_reverse(server, upstream):
    secret = server.api_key("crossing")
    key_id = next(
        k["id"]
        for k in httpx.get(f"{server.base}/api/keys", headers=server.admin).json()
        if k["name"] == "crossing"
    )

    async def add():
        async with http_client(f"{server.base}/mcp", secret) as client:
            return structured(
                await client.call_tool(
                    "memory_add",
                    {"content": "The user's staging database is called aurora-blue"},
                )
            )

    added = run(add)
    # REST sees it, under the key.
    rest = httpx.get(f"{server.base}/api/memory/{added['memory']['id']}", headers=server.admin)
    assert rest.json()["apiKeyId"] == key_id
    # The chat proxy injects it.
    upstream.requests.clear()
    response = _chat(server, secret, "What is my staging database called?")
    assert response.headers["x-engram-memories"] != "0"
    system = upstream.requests[-1]["json"]["messages"][0]
    assert system["role"] == "system" and "aurora-blue" in system["content"]

    # The reverse: through REST, and learnt by the chat proxy, then found through MCP.
    httpx.post(
        f"{server.base}/api/memory",
        json={"apiKeyId": key_id, "content": "The user's laptop is a ThinkPad X1"},
        headers=server.admin,
    ).raise_for_status()
    _chat(server, secret, "I always deploy on Fridays with Terraform.")

    async def search(query: str):
        async with http_client(f"{server.base}/mcp", secret) as client:
            return structured(await client.call_tool("memory_search", {"query": query}))

    laptop = run(lambda: search("which laptop"))
    assert "ThinkPad X1" in laptop["results"][0]["content"]
    deadline = time.monotonic() + 20  # extraction runs after the answer, off the response path
    while True:
        learnt = run(lambda: search("deploy Terraform Fridays"))
        if any("Terraform" in r["content"] for r in learnt["results"]):
            break
        assert time.monotonic() < deadline, learnt
        time.sleep(0.2)
