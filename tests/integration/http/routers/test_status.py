"""GET /api/memory/engine-status and /embedding-providers."""

from tests.support.http import seed


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
