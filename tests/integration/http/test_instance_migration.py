"""Moving a user to a new instance: the keys' export (hashes, never secrets) and the
memories' export, imported into a fresh instance, and the same secret chats there with
the same memories. Two real libSQL files, two apps, a stub upstream."""

from __future__ import annotations

import hashlib

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from engram import Config, MemorySettingsUpdate, open_engine
from shared.http import create_app
from tests.support.http import ADMIN_TOKEN, AUTH
from tests.support.upstream_stub import StubUpstream


@pytest.fixture
def instances(tmp_path):
    opened = []

    def instance(name: str, upstream: str) -> tuple[TestClient, object]:
        config = Config(
            db_url=f"file:{tmp_path / f'{name}.db'}",
            admin_token=SecretStr(ADMIN_TOKEN),
            upstream_base_url=upstream,
            data_dir=tmp_path / name,
        )
        engine = open_engine(config, jobs="inline")
        engine.settings.update(MemorySettingsUpdate(enabled=True, store_conversation=False))
        client = TestClient(create_app(config=config, engine=lambda: engine), headers=AUTH)
        opened.append((client, engine))
        return client, engine

    yield instance
    for client, engine in opened:
        client.close()
        engine.close()


def chat(client: TestClient, secret: str, text: str):
    return client.post(
        "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": text}]},
        headers={"Authorization": f"Bearer {secret}"},
    )


def test_a_user_moved_to_a_fresh_instance_chats_with_the_same_secret_and_memories(instances):
    with StubUpstream() as stub:
        old, _ = instances("old", stub.url)
        new, _ = instances("new", stub.url)
        made = old.post("/api/keys", json={"name": "laptop"}).json()
        secret = made["secret"]
        assert chat(old, secret, "I always deploy with Terraform.").status_code == 200

        keys = old.get("/api/keys/export")
        assert keys.status_code == 200
        (record,) = keys.json()["keys"]
        assert secret not in keys.text  # the hash travels, never the secret
        assert record["secretHash"] == hashlib.sha256(secret.encode()).hexdigest()
        memories = old.get("/api/memory/export")
        assert memories.status_code == 200

        assert new.post("/api/keys/import", json=keys.json()).json() == {
            "created": [made["id"]],
            "unchanged": [],
            "revoked": [],
            "conflicts": [],
        }
        imported = new.post(
            "/api/memory/import",
            content=memories.content,
            headers={"content-type": memories.headers["content-type"]},
        )
        assert imported.status_code == 200, imported.text

        stub.requests.clear()
        assert chat(new, secret, "How do I deploy?").status_code == 200
        (sent,) = stub.requests
        system = sent["json"]["messages"][0]
        assert system["role"] == "system" and "Terraform" in system["content"]


def test_an_import_never_overwrites_a_key_and_names_every_conflict(instances):
    old, _ = instances("old", "http://127.0.0.1:9")
    new, _ = instances("new", "http://127.0.0.1:9")
    kept = old.post("/api/keys", json={"name": "kept"}).json()
    exported = old.get("/api/keys/export").json()
    first = new.post("/api/keys/import", json=exported).json()
    assert first["created"] == [kept["id"]]
    again = new.post("/api/keys/import", json=exported).json()
    assert again == {"created": [], "unchanged": [kept["id"]], "revoked": [], "conflicts": []}

    (record,) = exported["keys"]
    other_secret = dict(record, secretHash="0" * 64)  # same id, another secret
    same_secret = dict(record, id="key_elsewhere")  # same secret, another id
    clash = new.post("/api/keys/import", json={"keys": [other_secret, same_secret]}).json()
    assert clash == {
        "created": [],
        "unchanged": [],
        "revoked": [],
        "conflicts": [record["id"], "key_elsewhere"],
    }
    (still,) = new.get("/api/keys/export").json()["keys"]
    assert still["secretHash"] == record["secretHash"]


@pytest.mark.parametrize(
    "record",
    [
        {"secretHash": "not-hex"},
        {"secretHash": "A" * 64},  # hex is lower case, as it is stored
        {"id": "*"},  # the global owner is not a key
        {"prefix": "sk-1234"},
        {"name": ""},
        {"secret": "egm_plain"},  # a secret is never imported
    ],
)
def test_a_bad_key_record_is_refused_whole(instances, record):
    old, _ = instances("old", "http://127.0.0.1:9")
    new, _ = instances("new", "http://127.0.0.1:9")
    old.post("/api/keys", json={"name": "k"})
    (good,) = old.get("/api/keys/export").json()["keys"]
    response = new.post("/api/keys/import", json={"keys": [good, {**good, **record}]})
    assert response.status_code == 422
    assert new.get("/api/keys").json() == []  # nothing half-imported


def test_key_names_are_printable_and_older_ones_still_export(instances):
    """The database reads text up to a NUL: a name starting with one came back empty and
    broke the export. Names are now printable; older ones export cleaned."""
    client, engine = instances("one", "http://127.0.0.1:9")
    assert client.post("/api/keys", json={"name": "\x00laptop"}).status_code == 422
    made = client.post("/api/keys", json={"name": "laptop"}).json()
    engine.keys.store.db.execute(
        "UPDATE api_keys SET name = ? WHERE id = ?", ("\x00old\x1f", made["id"])
    )
    exported = client.get("/api/keys/export")
    assert exported.status_code == 200
    (record,) = exported.json()["keys"]
    assert record["name"] in (made["id"], "old")


def test_a_key_revoked_during_a_move_is_revoked_on_the_new_instance_too(instances):
    """Exported, imported, then revoked at the source (leaked, say): importing again
    revokes it here as well. A revocation never travels back the other way."""
    old, _ = instances("old", "http://127.0.0.1:9")
    new, new_engine = instances("new", "http://127.0.0.1:9")
    made = old.post("/api/keys", json={"name": "leaky"}).json()
    new.post("/api/keys/import", json=old.get("/api/keys/export").json())
    assert new_engine.keys.authenticate(made["secret"]) is not None
    old.delete(f"/api/keys/{made['id']}")
    revoked_there = old.get("/api/keys/export").json()
    assert new.post("/api/keys/import", json=revoked_there).json()["revoked"] == [made["id"]]
    assert new_engine.keys.authenticate(made["secret"]) is None
    live_again = {"keys": [dict(revoked_there["keys"][0], revokedAt=None)]}
    assert new.post("/api/keys/import", json=live_again).json()["unchanged"] == [made["id"]]
    assert new_engine.keys.authenticate(made["secret"]) is None  # never un-revoked
