"""POST /api/memory/reindex and /summarize (the maintenance router)."""

from tests.support.http import seed


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
