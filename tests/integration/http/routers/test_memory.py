import pytest

MEMORY = {"apiKeyId": "key_a", "key": "preference:ts", "content": "TypeScript", "type": "factual"}


def count(db):
    return db.scalar("SELECT count(*) FROM memories")


def create(client, **overrides):
    response = client.post("/api/memory", json={**MEMORY, **overrides})
    assert response.status_code in (200, 201), response.text
    return response.json()


def test_create_is_201_and_restating_the_key_updates_in_place(client, engine, db):
    first = client.post("/api/memory", json={**MEMORY, "metadata": {"a": 1}})
    assert first.status_code == 201
    body = first.json()
    assert body["apiKeyId"] == "key_a"
    assert body["createdAt"].endswith("Z")
    again = client.post("/api/memory", json={**MEMORY, "content": "TS", "metadata": {"b": 2}})
    assert again.status_code == 200
    assert again.json()["id"] == body["id"]
    assert again.json()["metadata"] == {"a": 1, "b": 2}
    assert count(db) == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"apiKeyId": "key_a"}, "content"),
        ({**MEMORY, "content": "x" * 8193}, "content"),
        ({**MEMORY, "content": "   "}, "content"),
        ({**MEMORY, "metadata": ["not", "an", "object"]}, "metadata"),
        ({**MEMORY, "metadata": {"blob": "y" * 17_000}}, "metadata"),
        ({**MEMORY, "type": "opinion"}, "type"),
        ({**MEMORY, "apiKeyId": "bad id"}, "apiKeyId"),
        ({**MEMORY, "owner": "someone"}, "owner"),
        ({**MEMORY, "expiresAt": "next tuesday"}, "expiresAt"),
    ],
)
def test_create_rejects_bad_input_naming_the_field(client, engine, body, field, db):
    response = client.post("/api/memory", json=body)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["param"] == field
    assert field in error["message"]
    assert count(db) == 0


@pytest.mark.parametrize(
    "raw", ['{"apiKeyId": "key_a", "content": ', "not json", "", "[1,2", '"just a string"']
)
def test_malformed_json_is_4xx_never_500(client, engine, raw, db):
    response = client.post("/api/memory", content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code in (400, 422), response.text
    assert response.json()["error"]["message"]
    assert count(db) == 0


def test_get_put_delete_and_404s(client):
    memory = create(client)
    path = f"/api/memory/{memory['id']}"
    assert client.get(path).json() == memory
    updated = client.put(path, json={"content": "TypeScript 5", "sessionId": "s1"})
    assert updated.status_code == 200
    assert (updated.json()["content"], updated.json()["sessionId"]) == ("TypeScript 5", "s1")
    assert client.delete(path).status_code == 204
    for method in ("get", "delete"):
        response = client.request(method.upper(), path)
        assert response.status_code == 404
        assert response.json()["error"]["type"] == "not_found_error"
    assert client.put(path, json={"content": "x"}).status_code == 404


def test_put_validation_and_key_conflict(client, engine):
    create(client, key="k:one")
    two = create(client, key="k:two", content="second")
    path = f"/api/memory/{two['id']}"
    assert client.put(path, json={}).status_code == 422
    assert client.put(path, json={"content": None}).status_code == 422
    assert client.put(path, json={"nope": 1}).json()["error"]["param"] == "nope"
    conflict = client.put(path, json={"key": "k:one"})
    assert conflict.status_code == 409
    assert conflict.json()["error"]["param"] == "key"
    assert client.get(path).json()["key"] == "k:two"


def test_list_filters_paging_and_stats(client, engine):
    for i in range(5):
        create(client, key=f"k:{i}", content=f"fact number {i}", sessionId="s1" if i % 2 else None)
    create(client, apiKeyId="key_b", key="k:b", content="other key")
    body = client.get("/api/memory", params={"apiKeyId": "key_a", "limit": 2, "page": 2}).json()
    assert (body["total"], body["page"], body["limit"], len(body["data"])) == (5, 2, 2, 2)
    assert body["stats"] == {"total": 5, "tokensUsed": 20, "hitRate": 0.0}
    by_offset = client.get("/api/memory", params={"limit": 2, "page": 3, "offset": 1}).json()
    assert (by_offset["offset"], by_offset["page"], by_offset["total"]) == (1, 1, 6)
    assert client.get("/api/memory", params={"sessionId": "s1"}).json()["total"] == 2
    assert client.get("/api/memory", params={"q": "number 3"}).json()["total"] == 1
    assert client.get("/api/memory", params={"type": "episodic"}).json()["total"] == 0


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 501}, "limit"),
        ({"page": 0}, "page"),
        ({"offset": -1}, "offset"),
        ({"type": "bogus"}, "type"),
        ({"apiKeyId": "has space"}, "apiKeyId"),
        ({"limit": "ten"}, "limit"),
        ({"unknown": "x"}, "unknown"),
    ],
)
def test_list_rejects_bad_query_parameters(client, params, field):
    response = client.get("/api/memory", params=params)
    assert response.status_code == 422
    assert response.json()["error"]["param"] == field


def test_health_round_trip_cleans_up(client, engine, db):
    body = client.get("/api/memory/health").json()
    assert body["working"] is True
    assert body["latencyMs"] >= 0
    assert "error" not in body or body["error"] is None
    assert count(db) == 0


def test_health_reports_a_broken_store(client, engine, db):
    db.execute("DROP TRIGGER memory_fts_ai")
    db.execute(
        "CREATE TRIGGER broken BEFORE INSERT ON memories"
        " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
    )
    body = client.get("/api/memory/health").json()
    assert body["working"] is False
    assert "disk on fire" in body["error"]


def test_storage_failure_is_503_not_500(client, engine, db):
    db.execute("DROP TABLE memory_fts_vocab")
    db.execute("DROP TABLE memory_fts")
    response = client.post("/api/memory", json=MEMORY)
    assert response.status_code == 503
    assert response.json()["error"]["type"] == "storage_unavailable"


def test_unknown_route_is_a_json_404(client):
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found_error"


SECRET = "sk-proj-4fJ9aLx0QmZt7yW2vR8bN3cK"


def test_secrets_are_redacted_on_every_write_path(client, db):
    created = create(
        client,
        key=f"note:{SECRET}",
        content=f"Deploy key is {SECRET} and the password is hunter2",
        metadata={"source": f"token={SECRET}", SECRET: ["password: hunter2"]},
    )
    assert SECRET not in str(created) and "hunter2" not in str(created)
    assert "[REDACTED]" in created["content"]
    updated = client.put(f"/api/memory/{created['id']}", json={"content": f"now {SECRET}"})
    assert updated.json()["content"] == "now [REDACTED]"
    imported = client.post(
        "/api/memory/import",
        content=f'{{"apiKeyId": "key_a", "content": "import with {SECRET}"}}\n',
        headers={"content-type": "application/x-ndjson"},
    )
    assert imported.status_code == 200, imported.text
    dump = str([dict(r) for r in db.query("SELECT * FROM memories")])
    assert SECRET not in dump and "hunter2" not in dump
    assert dump.count("[REDACTED]") >= 4
