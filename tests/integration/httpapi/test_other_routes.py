import pytest

from .conftest import AUTH


def seed(client):
    for key, content in [
        ("preference:typescript", "TypeScript for frontend work"),
        ("decision:postgres", "Postgres for this project"),
        ("pet:cat", "cat named Biscuit"),
    ]:
        client.post("/api/memory", json={"apiKeyId": "key_a", "key": key, "content": content})


def test_every_route_needs_the_admin_token(app, anonymous):
    paths = app.openapi()["paths"]
    assert len(paths) >= 11
    for path, operations in paths.items():
        concrete = path.replace("{memory_id}", "x").replace("{key_id}", "x")
        for method in operations:
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic x"}):
                response = anonymous.request(method.upper(), concrete, headers=headers, json={})
                assert response.status_code == 401, (method, path, headers)
                assert response.headers["www-authenticate"] == "Bearer"
                assert response.json()["error"]["type"] == "authentication_error"


def test_management_is_closed_without_a_configured_token(engine):
    from fastapi.testclient import TestClient

    from engram import Config
    from shared.http import create_app

    app = create_app(config=Config(db_url=engine.config.db_url), engine=lambda: engine)
    response = TestClient(app).get("/api/memory", headers=AUTH)
    assert response.status_code == 401
    assert "ENGRAM_ADMIN_TOKEN" in response.json()["error"]["message"]


def test_preview_ranks_and_explains_without_changing_memories(client, engine):
    seed(client)
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
    assert engine.memories.stats("key_a").retrievals == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"apiKeyId": "key_a", "query": "x", "scope": "session"}, "sessionId"),
        ({"apiKeyId": "key_a", "query": "x", "strategy": "magic"}, "strategy"),
        ({"apiKeyId": "key_a", "query": "x", "limit": 0}, "limit"),
        ({"query": "x"}, "apiKeyId"),
        ({"apiKeyId": "key_a", "query": 5}, "query"),
    ],
)
def test_preview_rejects_bad_input(client, body, field):
    response = client.post("/api/memory/retrieve-preview", json=body)
    assert response.status_code == 422
    assert response.json()["error"]["param"] == field


def test_engine_status_and_providers_are_honest(client):
    seed(client)
    status = client.get("/api/memory/engine-status").json()
    assert status["keywordTier"] == {"engine": "fts5", "available": True}
    assert status["embeddingSource"] == "static"  # on by default, model installed
    assert status["vectorStore"]["active"] == "libsql"
    assert status["vectorStore"]["totalMemories"] == 3
    assert status["schemaVersion"] >= 2
    providers = {p["source"]: p for p in client.get("/api/memory/embedding-providers").json()}
    assert set(providers) == {"remote", "static", "transformers"}
    assert providers["static"]["available"] is True
    assert providers["static"]["dimension"] == 256
    assert providers["transformers"]["available"] is True
    assert providers["remote"]["available"] is False  # no endpoint or key configured
    assert "customBaseUrl" in providers["remote"]["reason"]


def test_settings_get_put_clamp_and_reject(client):
    assert client.get("/api/settings/memory").json()["enabled"] is False
    response = client.put(
        "/api/settings/memory", json={"enabled": True, "maxTokens": 99_999, "strategy": "recent"}
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["enabled"], body["maxTokens"], body["strategy"]) == (True, 16_000, "exact")
    assert client.get("/api/settings/memory").json() == body
    for bad, field in [
        ({"enabeld": True}, "enabeld"),
        ({"maxTokens": "many"}, "maxTokens"),
        ({"vectorStore": "pinecone"}, "vectorStore"),
    ]:
        rejected = client.put("/api/settings/memory", json=bad)
        assert rejected.status_code == 422
        assert rejected.json()["error"]["param"] == field
    assert client.get("/api/settings/memory").json() == body


def test_api_keys_lifecycle(client, engine):
    created = client.post("/api/keys", json={"name": "laptop"})
    assert created.status_code == 201
    secret = created.json()["secret"]
    listed = client.get("/api/keys").json()
    assert [k["id"] for k in listed] == [created.json()["id"]]
    assert "secret" not in listed[0]
    assert engine.keys.authenticate(secret) is not None
    revoked = client.delete(f"/api/keys/{created.json()['id']}")
    assert revoked.status_code == 200
    assert revoked.json()["revokedAt"]
    assert engine.keys.authenticate(secret) is None
    assert client.delete("/api/keys/key_unknown").status_code == 404
    assert client.post("/api/keys", json={"name": ""}).status_code == 422
    assert client.post("/api/keys", json={"name": "x", "secret": "mine"}).status_code == 422


def test_openapi_describes_bodies_and_responses(app):
    spec = app.openapi()
    create = spec["paths"]["/api/memory"]["post"]
    assert "MemoryCreate" in str(create["requestBody"])
    assert "Memory" in str(create["responses"]["201"])
    preview = spec["paths"]["/api/memory/retrieve-preview"]["post"]
    assert "RetrievalResult" in str(preview["responses"]["200"])
    assert "bearer" in str(spec["components"]["securitySchemes"]).lower()


def test_reindex_endpoint_reports_started_and_pending(client, engine):
    seed(client)
    assert client.get("/api/memory/engine-status").json()["vectorStore"]["pendingReindex"] == 3
    response = client.post("/api/memory/reindex", json={"force": True})
    assert response.status_code == 200
    assert response.json() == {"started": True, "pending": 0, "processed": 3, "reason": None}
    assert client.get("/api/memory/engine-status").json()["vectorStore"]["pendingReindex"] == 0
    assert client.post("/api/memory/reindex", json={"force": "yes please"}).status_code == 422
    assert client.post("/api/memory/reindex", json={"all": True}).status_code == 422


def test_reindex_without_an_embedder_says_why(client, engine):
    seed(client)
    client.put("/api/settings/memory", json={"staticEnabled": False})
    body = client.post("/api/memory/reindex", json={}).json()
    assert body["started"] is False
    assert body["pending"] == 3
    assert "no embedding source" in body["reason"]


def test_settings_refuse_a_metadata_endpoint(client):
    response = client.put("/api/settings/memory", json={"customBaseUrl": "http://169.254.169.254"})
    assert response.status_code == 422
    assert response.json()["error"]["param"] == "customBaseUrl"
