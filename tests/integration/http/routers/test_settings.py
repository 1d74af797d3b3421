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
        ({"enabled": "yes"}, "enabled"),  # strict types: no string booleans
        ({"maxTokens": "100"}, "maxTokens"),  # nor numbers as text
        ({"strategy": 1}, "strategy"),
        ({"injectionMode": "cache-safe"}, "injectionMode"),
    ]:
        rejected = client.put("/api/settings/memory", json=bad)
        assert rejected.status_code == 422
        assert rejected.json()["error"]["param"] == field
    assert client.get("/api/settings/memory").json() == body


def test_settings_refuse_a_metadata_endpoint(client):
    response = client.put("/api/settings/memory", json={"customBaseUrl": "http://169.254.169.254"})
    assert response.status_code == 422
    assert response.json()["error"]["param"] == "customBaseUrl"


def test_backend_credentials_are_write_only(client, engine, caplog):
    secret = "obsidian-secret-token-1234567890"
    body = {
        "backendConfigs": {
            "obsidian": {"baseUrl": "https://127.0.0.1:27124", "apiKey": secret, "folder": "mem"}
        }
    }
    written = client.put("/api/settings/memory", json=body)
    assert written.status_code == 200
    shown = written.json()["backendConfigs"]["obsidian"]
    assert shown == {"baseUrl": "https://127.0.0.1:27124", "folder": "mem", "hasApiKey": True}
    read = client.get("/api/settings/memory")
    assert secret not in read.text
    # Sent back as read (a UI saving the form): the stored key stays.
    again = client.put(
        "/api/settings/memory", json={"backendConfigs": read.json()["backendConfigs"]}
    )
    assert again.json()["backendConfigs"]["obsidian"]["hasApiKey"] is True
    assert engine.settings.get().backend_configs["obsidian"]["apiKey"] == secret
    # An empty key removes it.
    cleared = client.put(
        "/api/settings/memory", json={"backendConfigs": {"obsidian": {"apiKey": "", "folder": "m"}}}
    )
    assert cleared.json()["backendConfigs"]["obsidian"] == {"folder": "m"}
    assert "apiKey" not in engine.settings.get().backend_configs["obsidian"]
    assert secret not in caplog.text
