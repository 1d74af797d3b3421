import json

from engram.domain.models import MemoryCreate


def export(client, **params):
    response = client.get("/api/memory/export", params=params)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return response.content


def test_import_then_export_round_trips_exactly(client, engine, tmp_path):
    for i in range(3):
        engine.memories.create(
            MemoryCreate(
                api_key_id="key_a",
                key=f"k:{i}",
                content=f"fact {i} — café ✓",
                metadata={"n": i, "nested": {"ok": True}},
                session_id="s1" if i else None,
            )
        )
    engine.memories.create(MemoryCreate(api_key_id="key_b", key="k:b", content="other"))
    original = export(client, apiKeyId="key_a")
    assert len(original.splitlines()) == 3

    from fastapi.testclient import TestClient

    from engram import Config, open_engine
    from shared.http import create_app
    from tests.support.http import AUTH

    fresh = open_engine(Config(db_url=f"file:{tmp_path / 'fresh.db'}"), jobs="manual")
    other = TestClient(
        create_app(config=Config(admin_token="test-admin-token"), engine=lambda: fresh),
        headers=AUTH,
    )
    imported = other.post(
        "/api/memory/import", content=original, headers={"Content-Type": "application/x-ndjson"}
    )
    assert imported.json() == {"received": 3, "created": 3, "updated": 0}
    assert export(other, apiKeyId="key_a") == original
    again = other.post("/api/memory/import", json=[json.loads(x) for x in original.splitlines()])
    assert again.json() == {"received": 3, "created": 0, "updated": 3}
    assert export(other) == original
    fresh.close()


def test_invalid_items_are_all_reported_and_nothing_is_written(client, engine, db):
    items = [
        {"apiKeyId": "key_a", "key": "ok:1", "content": "fine"},
        {"apiKeyId": "key_a", "key": "bad:1"},
        {"apiKeyId": "key_a", "key": "ok:2", "content": "fine too"},
        {"apiKeyId": "bad id", "content": "x", "type": "nope"},
    ]
    response = client.post("/api/memory/import", json=items)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["message"].startswith("2 of 4 item(s) are invalid")
    assert {(d["index"], d["field"]) for d in error["details"]} == {
        (1, "content"),
        (3, "apiKeyId"),
        (3, "type"),
    }
    assert db.scalar("SELECT count(*) FROM memories") == 0


def test_ndjson_lines_that_are_not_json_are_reported(client, engine, db):
    body = '{"apiKeyId":"key_a","content":"ok"}\n\n{oops\n'
    response = client.post(
        "/api/memory/import", content=body, headers={"Content-Type": "application/x-ndjson"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["details"][0]["index"] == 2
    assert db.scalar("SELECT count(*) FROM memories") == 0


def test_lines_that_are_not_json_and_invalid_items_are_reported_in_one_answer(client, db):
    body = "\n".join(
        [
            '{"apiKeyId":"key_a","content":"ok"}',
            "{oops",
            '{"apiKeyId":"key_a"}',  # no content
            '{"apiKeyId":"key_a","content":"fine"}',
            "not json either",
        ]
    )
    response = client.post(
        "/api/memory/import", content=body, headers={"Content-Type": "application/x-ndjson"}
    )
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["message"].startswith("3 of 5 item(s) are invalid")
    assert [(d["index"], d["field"]) for d in error["details"]] == [
        (1, None),
        (2, "content"),
        (4, None),
    ]
    assert db.scalar("SELECT count(*) FROM memories") == 0


def test_an_id_clash_names_the_item_and_rolls_back(client, engine, db):
    existing = engine.memories.create(MemoryCreate(api_key_id="key_a", content="mine"))
    items = [
        {"apiKeyId": "key_b", "key": "new", "content": "new"},
        {"id": existing.id, "apiKeyId": "key_b", "key": "clash", "content": "theirs"},
    ]
    response = client.post("/api/memory/import", json=items)
    assert response.status_code == 409
    assert response.json()["error"]["param"] == "[1].id"
    assert db.scalar("SELECT count(*) FROM memories") == 1


def test_empty_and_wrongly_shaped_imports(client):
    for body, content_type in [
        ("", "application/x-ndjson"),
        ("[]", "application/json"),
        ('{"apiKeyId": "key_a"}', "application/json"),
        ("[1, 2", "application/json"),
        (b"\xff\xfe", "application/x-ndjson"),
    ]:
        response = client.post(
            "/api/memory/import", content=body, headers={"Content-Type": content_type}
        )
        assert response.status_code == 422, body
        assert response.json()["error"]["message"]


def test_export_validates_its_query(client):
    assert client.get("/api/memory/export", params={"apiKeyId": "bad id"}).status_code == 422
    assert client.get("/api/memory/export", params={"format": "csv"}).status_code == 422
    assert export(client) == b""
