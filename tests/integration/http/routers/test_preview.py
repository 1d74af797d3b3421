"""POST /api/memory/retrieve-preview: ranked, explained, read-only."""

import pytest

from tests.support.http import seed


def test_preview_ranks_and_explains_without_changing_memories(client, engine, db):
    seed(client)
    assert engine.queues.embedding.drain() == 3  # each write asked for its vector
    before = client.get("/api/memory").json()["data"]
    response = client.post(
        "/api/memory/retrieve-preview",
        json={"apiKeyId": "key_a", "query": "What is my cat called?", "maxTokens": 500},
    )
    assert response.status_code == 200
    body = response.json()
    top = body["results"][0]
    assert top["content"] == "cat named Biscuit"
    assert top["tier"] == "hybrid"  # a keyword match with a vector (static embedder, default)
    assert top["ftsScore"] > 0 and -1 <= top["vecScore"] <= 1
    assert set(top) >= {"id", "key", "score", "tokens", "ftsScore", "vecScore", "createdAt"}
    assert body["tokensUsed"] == sum(r["tokens"] for r in body["results"])
    assert body["resolution"]["strategy"] == "hybrid"
    assert body["resolution"]["keywordTier"] == "fts5"
    assert body["resolution"]["embeddingSource"] == "static"
    assert body["resolution"]["vectorStore"] == "libsql"
    assert body["resolution"]["fallback"] is False
    assert client.get("/api/memory").json()["data"] == before
    assert engine.memories.stats("key_a").retrievals == 0  # a preview is not a retrieval


def test_preview_writes_nothing_and_says_what_waits_for_a_vector(client, engine, db):
    seed(client)  # the embedding jobs are queued, not yet processed
    response = client.post(
        "/api/memory/retrieve-preview", json={"apiKeyId": "key_a", "query": "my cat Biscuit"}
    )
    top = response.json()["results"][0]
    assert top["content"] == "cat named Biscuit"
    assert top["tier"] == "keyword" and top["vecScore"] is None
    assert db.scalar("SELECT count(*) FROM memories WHERE needs_reindex = 1") == 3
    assert db.scalar("SELECT count(*) FROM retrieval_stats") == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"apiKeyId": "key_a", "query": "x", "scope": "session"}, "sessionId"),
        ({"apiKeyId": "key_a", "query": "x", "strategy": 3}, "strategy"),
        ({"apiKeyId": "key_a", "query": "x", "maxTokens": "100"}, "maxTokens"),
        ({"apiKeyId": "key_a", "query": "x", "injectionMode": "cache-safe"}, "injectionMode"),
        ({"apiKeyId": "key_a", "query": "x", "limit": 0}, "limit"),
        ({"query": "x"}, "apiKeyId"),
        ({"apiKeyId": "key_a", "query": 5}, "query"),
    ],
)
def test_preview_rejects_bad_input(client, body, field):
    response = client.post("/api/memory/retrieve-preview", json=body)
    assert response.status_code == 422
    assert response.json()["error"]["param"] == field


@pytest.mark.parametrize(
    ("sent", "meant"),
    [("recent", "exact"), ("EXACT", "exact"), ("semantic", "semantic"), ("magic", "hybrid")],
)
def test_preview_reads_strategies_as_the_settings_do(client, sent, meant):
    """One vocabulary: what the settings accept, the preview accepts, with one meaning."""
    seed(client)
    stored = client.put("/api/settings/memory", json={"strategy": sent}).json()["strategy"]
    body = {"apiKeyId": "key_a", "query": "cat", "strategy": sent}
    previewed = client.post("/api/memory/retrieve-preview", json=body).json()
    assert stored == previewed["resolution"]["strategy"] == meant


def test_preview_shows_the_messages_the_upstream_would_receive(client):
    seed(client)
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "What is my cat called?"},
    ]
    body = {"apiKeyId": "key_a", "messages": messages, "model": "gpt-4o"}
    prepend = client.post("/api/memory/retrieve-preview", json=body).json()
    assert prepend["results"][0]["content"] == "cat named Biscuit"  # the query: last user turn
    sent = prepend["injection"]["messages"]
    assert prepend["injection"]["mode"] == "prepend"
    assert [m["role"] for m in sent] == ["system", "system", "user"]
    assert sent[0]["content"].startswith("Memory context:") and sent[1:] == messages
    cache_safe = client.post(
        "/api/memory/retrieve-preview", json={**body, "injectionMode": "cacheSafe"}
    ).json()["injection"]
    assert cache_safe["mode"] == "cacheSafe"
    assert [m["role"] for m in cache_safe["messages"]] == ["system", "user"]
    assert cache_safe["messages"][0]["content"].startswith("You are terse.\n\nMemory context:")
    # The settings' mode applies when the request names none.
    client.put("/api/settings/memory", json={"injectionMode": "cacheSafe"})
    again = client.post("/api/memory/retrieve-preview", json=body).json()["injection"]
    assert again == cache_safe
    # Without messages, the query is the request: one user message.
    alone = client.post("/api/memory/retrieve-preview", json={"apiKeyId": "key_a", "query": "cat"})
    assert alone.json()["injection"]["messages"][-1] == {"role": "user", "content": "cat"}
