"""DELETE /api/memory (forget in bulk) and GET /api/memory/{id}/history over HTTP."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from engram.domain.models import ExtractionJob, JobTurn


def add(client, content, owner="key_a", **extra):
    body = {"apiKeyId": owner, "content": content, **extra}
    response = client.post("/api/memory", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def test_a_dry_run_counts_then_forgetting_deletes(client):
    add(client, "one", sessionId="s1")
    add(client, "two", sessionId="s1", type="episodic")
    add(client, "three", sessionId="s2")
    add(client, "other key", owner="key_b", sessionId="s1")
    dry = client.delete(
        "/api/memory", params={"apiKeyId": "key_a", "sessionId": "s1", "dryRun": "true"}
    )
    assert dry.status_code == 200
    assert dry.json() == {
        "matched": 2,
        "deleted": 0,
        "history": 0,
        "byType": {"factual": 1, "episodic": 1},
        "dryRun": True,
    }
    assert client.get("/api/memory", params={"apiKeyId": "key_a"}).json()["total"] == 3
    done = client.delete("/api/memory", params={"apiKeyId": "key_a", "sessionId": "s1"})
    assert done.json()["deleted"] == 2 and done.json()["dryRun"] is False
    left = client.get("/api/memory", params={"apiKeyId": "key_a"}).json()["data"]
    assert [m["content"] for m in left] == ["three"]
    assert client.get("/api/memory", params={"apiKeyId": "key_b"}).json()["total"] == 1


def test_type_and_age_filters(client, clock):
    add(client, "old fact")
    clock.advance(days=40)
    add(client, "new fact")
    add(client, "new episode", type="episodic")
    response = client.delete(
        "/api/memory", params={"apiKeyId": "key_a", "type": "factual", "olderThanDays": 30}
    )
    assert response.json()["deleted"] == 1
    left = {
        m["content"] for m in client.get("/api/memory", params={"apiKeyId": "key_a"}).json()["data"]
    }
    assert left == {"new fact", "new episode"}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "apiKeyId"),
        ({"apiKeyId": "bad id"}, "apiKeyId"),
        ({"apiKeyId": "key_a", "type": "opinion"}, "type"),
        ({"apiKeyId": "key_a", "olderThanDays": "0"}, "olderThanDays"),
        ({"apiKeyId": "key_a", "olderThanDays": "soon"}, "olderThanDays"),
        ({"apiKeyId": "key_a", "dryRun": "yes"}, "dryRun"),
        ({"apiKeyId": "key_a", "everything": "true"}, "everything"),
    ],
)
def test_bad_filters_are_refused_and_nothing_is_deleted(client, params, field):
    add(client, "keep me")
    response = client.delete("/api/memory", params=params)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["param"] == field
    assert client.get("/api/memory", params={"apiKeyId": "key_a"}).json()["total"] == 1


def test_forgetting_needs_the_admin_token(app, client):
    add(client, "keep me")
    with TestClient(app) as anonymous:
        response = anonymous.delete("/api/memory", params={"apiKeyId": "key_a"})
    assert response.status_code == 401
    assert client.get("/api/memory", params={"apiKeyId": "key_a"}).json()["total"] == 1


def test_history_of_a_superseded_fact(client, engine):
    for n, text in enumerate(
        ["We'll use FastAPI for the backend.", "Scratch that, we'll use Django instead of FastAPI."]
    ):
        engine.memories.process_extraction(
            ExtractionJob(
                api_key_id="key_a", turns=[JobTurn(role="user", text=text)], request_id=f"h{n}"
            )
        )
    live = client.get("/api/memory", params={"apiKeyId": "key_a"}).json()["data"]
    assert [m["content"] for m in live] == ["use Django"]
    history = client.get(f"/api/memory/{live[0]['id']}/history")
    assert history.status_code == 200
    versions = history.json()["data"]
    assert [v["content"] for v in versions] == ["use Django", "use FastAPI for the backend"]
    assert versions[0]["validTo"] is None and versions[0]["supersededBy"] is None
    assert versions[1]["supersededBy"] == live[0]["id"] and versions[1]["reason"] == "superseded"
    assert versions[1]["validFrom"] <= versions[1]["validTo"]
    assert client.get(f"/api/memory/{versions[1]['id']}").status_code == 404
    assert client.get("/api/memory/nope/history").status_code == 404
