"""The API keys of the chat proxy: /api/keys."""


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
