"""GET/PUT /api/settings/memory."""


def test_settings_get_put_normalise_and_reject(client):
    assert client.get("/api/settings/memory").json()["enabled"] is False
    response = client.put(
        "/api/settings/memory", json={"enabled": True, "maxTokens": 16_000, "strategy": "recent"}
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["enabled"], body["maxTokens"], body["strategy"]) == (True, 16_000, "exact")
    assert client.get("/api/settings/memory").json() == body
    for bad, field in [
        ({"enabeld": True}, "enabeld"),
        ({"maxTokens": "many"}, "maxTokens"),
        ({"maxTokens": 99_999}, "maxTokens"),  # refused, never clamped
        ({"vectorStore": "pinecone"}, "vectorStore"),
    ]:
        rejected = client.put("/api/settings/memory", json=bad)
        assert rejected.status_code == 422
        assert rejected.json()["error"]["param"] == field
    assert client.get("/api/settings/memory").json() == body


def test_settings_refuse_a_metadata_endpoint(client):
    response = client.put("/api/settings/memory", json={"customBaseUrl": "http://169.254.169.254"})
    assert response.status_code == 422
    assert response.json()["error"]["param"] == "customBaseUrl"
