"""Issue 33's repros, each once a 500 or a silent loss: now a clear 4xx, or kept intact."""

from __future__ import annotations

import json

import pytest

from engram.domain.models.backends import parse_backend_config

MEMORY = {"apiKeyId": "key_a", "key": "pet", "content": "My cat is named Biscuit"}


@pytest.fixture
def seeded(client):
    assert client.post("/api/memory", json=MEMORY).status_code == 201
    return client


def export_lines(client) -> list[str]:
    response = client.get("/api/memory/export")
    assert response.status_code == 200
    return response.text.split("\n")


@pytest.mark.parametrize(
    "content_type", ["application/vnd.api+json", "application/merge-patch+json", "text/json"]
)
@pytest.mark.parametrize(
    ("method", "path", "raw"),
    [
        ("post", "/api/memory/retrieve-preview", b'{"apiKeyId":"key_a","query":"cat","limit":NaN}'),
        ("post", "/api/memory/retrieve-preview", b'{"apiKeyId":"key_a","query":"\\ud800"}'),
        ("put", "/api/settings/memory", b'{"maxTokens":Infinity}'),
        ("post", "/api/memory", b'{"apiKeyId":"key_a","content":"\\udfff"}'),
        ("post", "/v1/chat/completions", b'{"model":"m","messages":[],"temperature":NaN}'),
    ],
)
def test_json_by_family_is_checked_as_json(seeded, content_type, method, path, raw):
    answer = seeded.request(
        method.upper(), path, content=raw, headers={"content-type": content_type}
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["type"] == "invalid_json"


def test_the_last_instant_a_date_can_name_is_kept_to_the_millisecond(seeded):
    far = {**MEMORY, "key": "far", "expiresAt": "9999-12-31T23:59:59.999999Z"}
    for answer in (
        seeded.post("/api/memory", json=far),
        seeded.post("/api/memory/import", json=[{**far, "key": "far2"}]),
    ):
        assert answer.status_code in (200, 201), answer.text
    stored = {json.loads(line)["key"]: json.loads(line) for line in export_lines(seeded) if line}
    assert stored["far"]["expiresAt"] == stored["far2"]["expiresAt"] == "9999-12-31T23:59:59.999Z"


@pytest.mark.parametrize("field", ["expiresAt"])
@pytest.mark.parametrize(
    "value",
    [
        "10000-01-01T00:00:00Z",
        "+275760-09-13T00:00:00Z",
        "9999-12-31T23:59:59-05:00",  # in UTC: year 10000
        "0001-01-01T00:00:00+05:00",  # in UTC: year 0
    ],
)
def test_dates_out_of_range_are_422(seeded, field, value):
    created = seeded.post("/api/memory", json={**MEMORY, "key": "far", field: value})
    assert created.status_code == 422, created.text
    assert created.json()["error"]["param"] == field
    memory_id = json.loads(export_lines(seeded)[0])["id"]
    updated = seeded.put(f"/api/memory/{memory_id}", json={field: value})
    assert updated.status_code == 422, updated.text
    imported = seeded.post("/api/memory/import", json=[{**MEMORY, "key": "far", field: value}])
    assert imported.status_code == 422, imported.text
    assert [json.loads(line)["key"] for line in export_lines(seeded) if line] == ["pet"]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x1c", "\x0b", "\x0c"])
def test_an_export_reimports_whatever_line_separators_its_text_holds(seeded, separator):
    text = f"first line{separator}second line"
    assert (
        seeded.post("/api/memory", json={**MEMORY, "key": "sep", "content": text}).status_code
        == 201
    )
    lines = [line for line in export_lines(seeded) if line]
    seeded.delete("/api/memory", params={"apiKeyId": "key_a"})
    body = "\n".join(lines).encode()
    answer = seeded.post(
        "/api/memory/import", content=body, headers={"content-type": "application/x-ndjson"}
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["received"] == len(lines), answer.json()
    contents = {json.loads(line)["content"] for line in export_lines(seeded) if line}
    assert text in contents


# -- settings: what is saved can be used


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"backendConfigs": {"http": {"baseUrl": "http://x.test", "apiKey": "clé"}}}, "apiKey"),
        (
            {"backendConfigs": {"http": {"baseUrl": "http://x.test", "headers": {"X-Tag": "été"}}}},
            "headers",
        ),
        (
            {
                "backendConfigs": {
                    "http": {"baseUrl": "http://x.test", "headers": {"Sig": "a\u2028b"}}
                }
            },
            "headers",
        ),
        (
            {"backendConfigs": {"http": {"baseUrl": "http://１６９.２５４.１６９.２５４"}}},
            "baseUrl",
        ),
        ({"backendConfigs": {"http": {"baseUrl": "http://①⑥⑨.②⑤④.①⑥⑨.②⑤④/"}}}, "baseUrl"),
        ({"backendConfigs": {"http": {"baseUrl": "http://exa\u00admple..test"}}}, "baseUrl"),
        ({"customBaseUrl": "http://１６９.２５４.１６９.２５４/v1"}, "customBaseUrl"),
        ({"extractorBaseUrl": "http://①②⑦.0.0.1:99999/v1"}, "extractorBaseUrl"),
    ],
)
def test_memory_settings_that_could_not_be_used_are_refused(client, body, field):
    before = client.get("/api/settings/memory").json()
    response = client.put("/api/settings/memory", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["param"].endswith(field)
    assert client.get("/api/settings/memory").json() == before


def test_a_host_in_other_digits_is_kept_in_ascii(client):
    body = {"backendConfigs": {"http": {"baseUrl": "http://ｍｅｍｏｒｙ.example:8080/api"}}}
    response = client.put("/api/settings/memory", json=body)
    assert response.status_code == 200, response.text
    saved = response.json()["backendConfigs"]["http"]
    assert parse_backend_config("http", saved).base_url == "http://memory.example:8080/api"


@pytest.mark.parametrize(
    "body",
    [
        {"apiKey": "ключ"},
        {"apiKey": "two words"},
        {"host": "169.254.169.254"},
        {"host": "metadata.google.internal"},
        {"host": "0xa9fea9fe"},
        {"host": "[fd00:ec2::254]"},
        {"host": "2852039166"},
    ],
)
def test_qdrant_settings_that_could_not_be_used_are_refused(client, body):
    before = client.get("/api/settings/qdrant").json()
    response = client.put("/api/settings/qdrant", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["param"] == next(iter(body))
    assert client.get("/api/settings/qdrant").json() == before


# -- a NUL in a chat message: refused before anything is lost


@pytest.mark.parametrize(
    "content",
    ["I live in Lyon\u0000 and I am vegetarian", [{"type": "text", "text": "my dog\u0000Rex"}]],
)
def test_a_chat_message_holding_nul_is_refused_before_it_goes_upstream(chat, content):
    http, stub, _ = chat
    body = {"model": "m", "messages": [{"role": "user", "content": content}]}
    response = http.post("/v1/chat/completions", json=body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert "NUL" in error["message"] and "Lyon" not in response.text and "Rex" not in response.text
    assert error["param"] == "messages.0.content"
    assert not stub.requests


# -- identifiers never stored, on every write path

CARD = "4111 1111 1111 1111"
IBAN = "DE89 3704 0044 0532 0130 00"


def test_cards_ibans_and_passwords_are_redacted_on_every_write_path(chat, client):
    http, _, proxy = chat
    said = f"My card is {CARD}, my IBAN is {IBAN} and the wifi pw=Kedi2024x"
    item = {"apiKeyId": "key_a", "content": said}
    assert client.post("/api/memory", json={**item, "key": "created"}).status_code == 201
    assert client.post("/api/memory/import", json=[{**item, "key": "imported"}]).status_code == 200
    client.put(f"/api/memory/{json.loads(export_lines(client)[0])['id']}", json={"content": said})
    body = {"model": "m", "messages": [{"role": "user", "content": said}]}
    assert http.post("/v1/chat/completions", json=body).status_code == 200
    proxy.queues.extraction.drain()
    stored = "\n".join(export_lines(client))
    assert "[REDACTED]" in stored and "wifi" in stored
    for secret in (CARD, CARD.replace(" ", ""), IBAN, "Kedi2024x"):
        assert secret not in stored
    assert len([line for line in export_lines(client) if line]) >= 3
