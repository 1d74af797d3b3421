"""Credentials in the settings table are sealed: never in the table in clear, opened for
use, rotated by key, and a missing or wrong key never loses one or answers 500."""

from __future__ import annotations

import json
import logging
import os
import stat

import pytest
from pydantic import SecretStr

from engram import Config, MemorySettingsUpdate, open_engine
from engram.adapters.libsql import Database
from engram.adapters.sealing import SEALED, Sealer, new_key, parse_keys, sealer_for
from engram.domain.errors import ConfigError, ConflictError
from engram.domain.models.qdrant import QdrantSettingsUpdate

API_KEY = "sk-backend-7Hq2Lw9"
HEADER = "sig-5d1f0a"
QDRANT_KEY = "qdrant-key-4Zp8"
CONFIGS = {
    "brain": {
        "type": "http",
        "baseUrl": "http://x.test",
        "apiKey": API_KEY,
        "headers": {"X-Signature": HEADER},
    }
}


def raw(db: Database, namespace: str) -> str:
    return str(db.scalar("SELECT value FROM settings WHERE namespace = ?", (namespace,)))


def store_credentials(engine) -> None:
    engine.settings.update(MemorySettingsUpdate(backend_configs=CONFIGS))
    engine.qdrant.settings.update(QdrantSettingsUpdate(api_key=QDRANT_KEY))


def read_credentials(engine) -> tuple[str, str, str | None]:
    engine.settings.invalidate()
    config = engine.settings.get().backend_configs["brain"]
    qdrant = engine.qdrant.settings.get().api_key
    return (
        config["apiKey"],
        config["headers"]["X-Signature"],
        (qdrant.get_secret_value() if qdrant else None),
    )


def reopen(config: Config, clock, key: str | None):
    return open_engine(
        config.model_copy(update={"secrets_key": SecretStr(key) if key else None}),
        clock=clock,
        jobs="manual",
    )


def test_credentials_are_sealed_at_rest_and_open_for_use(engine, db):
    store_credentials(engine)
    for namespace in ("memory", "qdrant"):
        text = raw(db, namespace)
        assert SEALED in text
        for secret in (API_KEY, HEADER, QDRANT_KEY):
            assert secret not in text
    stored = json.loads(raw(db, "memory"))["backend_configs"]["brain"]
    assert stored["baseUrl"] == "http://x.test"  # only credentials are sealed
    assert read_credentials(engine) == (API_KEY, HEADER, QDRANT_KEY)


def test_a_database_file_gets_its_own_key_readable_by_its_owner_only(
    engine, config, clock, db_path
):
    store_credentials(engine)
    key_file = db_path.with_name(db_path.name + ".key")
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    other = open_engine(config, clock=clock, jobs="manual")  # another process, same file
    try:
        assert read_credentials(other) == (API_KEY, HEADER, QDRANT_KEY)
    finally:
        other.close()


def test_rotation_new_key_first_reseal_then_drop_the_old(config, clock, db, caplog):
    old, new = new_key(), new_key()
    first = reopen(config, clock, old)
    store_credentials(first)
    first.close()
    both = reopen(config, clock, f"{new},{old}")
    assert read_credentials(both) == (API_KEY, HEADER, QDRANT_KEY)
    assert both.settings.reseal() == ["memory", "qdrant"]
    both.close()
    new_only = reopen(config, clock, new)
    assert read_credentials(new_only) == (API_KEY, HEADER, QDRANT_KEY)
    new_only.close()
    # The old key alone no longer opens them: not a 500, not a loss.
    with caplog.at_level(logging.WARNING):
        stale = reopen(config, clock, old)
        api_key, header, qdrant = read_credentials(stale)
    assert api_key.startswith(SEALED) and header.startswith(SEALED) and qdrant.startswith(SEALED)
    assert "not configured" in caplog.text and API_KEY not in caplog.text
    stale.settings.update(MemorySettingsUpdate(max_tokens=1500))  # saving keeps them sealed
    stale.close()
    back = reopen(config, clock, new)
    assert read_credentials(back) == (API_KEY, HEADER, QDRANT_KEY)
    back.close()


def test_credentials_stored_before_sealing_still_work_and_reseal(engine, db):
    legacy = {"backend_configs": CONFIGS, "enabled": True}
    db.execute(
        "INSERT INTO settings (namespace, value, updated_at) VALUES ('memory', ?, 1)"
        " ON CONFLICT (namespace) DO UPDATE SET value = excluded.value",
        (json.dumps(legacy),),
    )
    assert read_credentials(engine)[:2] == (API_KEY, HEADER)
    assert API_KEY in raw(db, "memory")
    engine.settings.reseal()
    assert API_KEY not in raw(db, "memory") and HEADER not in raw(db, "memory")
    assert read_credentials(engine)[:2] == (API_KEY, HEADER)


def test_a_remote_database_without_a_key_refuses_to_store_a_credential():
    sealer = sealer_for(None, None, remote=True)
    with pytest.raises(ConflictError, match="ENGRAM_SECRETS_KEY"):
        sealer.seal(API_KEY)
    assert sealer.open("plain, from before") == "plain, from before"


def test_a_sealed_value_is_authenticated():
    sealer = Sealer(parse_keys(new_key()))
    sealed = sealer.seal(API_KEY)
    assert sealer.open(sealed) == API_KEY and sealer.is_current(sealed)
    tampered = sealed[:-6] + ("A" if sealed[-6] != "A" else "B") + sealed[-5:]
    assert sealer.open(tampered) == tampered  # refused, kept as it was, never garbage
    assert sealer.seal(sealed) == sealed  # never sealed twice


@pytest.mark.parametrize("value", ["short", "a" * 44, f"{new_key()},not-a-key"])
def test_a_malformed_key_is_a_config_error_that_does_not_repeat_it(value):
    with pytest.raises(ConfigError) as caught:
        parse_keys(value)
    assert "ENGRAM_SECRETS_KEY" in caught.value.message and value not in caught.value.message


def test_the_cli_makes_a_key_and_reseals_with_it(monkeypatch, tmp_path, capsys, clock):
    from shared.devtools.cli import main

    assert main(["secrets-key"]) == 0
    new = capsys.readouterr().out.strip()
    assert len(parse_keys(new)) == 1
    url = f"file:{tmp_path / 'cli.db'}"
    old = new_key()
    first = open_engine(Config(db_url=url, secrets_key=SecretStr(old)), clock=clock, jobs="manual")
    store_credentials(first)
    first.close()
    monkeypatch.setenv("ENGRAM_DB_URL", url)
    monkeypatch.setenv("ENGRAM_SECRETS_KEY", f"{new},{old}")
    assert main(["reseal-secrets"]) == 0
    assert json.loads(capsys.readouterr().out) == {"resealed": ["memory", "qdrant"]}
    after = open_engine(Config(db_url=url, secrets_key=SecretStr(new)), clock=clock, jobs="manual")
    assert read_credentials(after) == (API_KEY, HEADER, QDRANT_KEY)
    after.close()
