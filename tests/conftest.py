"""Shared fixtures: a fresh real libSQL file per test, a controllable clock, and an engine
built by the composition root with queued jobs held until a test drains them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr

from engram import Config, Engine, open_engine
from engram.adapters.libsql import Database
from shared.devtools.sqld import SqldServer

# No X-Ray daemon here: handlers run with Powertools Tracer switched off (tests that check
# the tracing itself run a handler in a subprocess with it on).
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")


class FrozenClock:
    """A clock the test moves by hand: expiry and retention without sleeping."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(datetime(2026, 11, 30, 12, 0, tzinfo=UTC))


# `make test-remote` sets ENGRAM_TEST_DB=sqld: every test's database is then a fresh real
# libSQL server (sqld) instead of a file. Tests about the file itself ask for `db_path`
# and are skipped there.
REMOTE = os.environ.get("ENGRAM_TEST_DB") == "sqld"
REMOTE_SECRETS_KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="  # bytes 0..31, tests only
if REMOTE:
    # A remote database keeps no key file: its deployment configures one, and so does
    # every Config a test builds here (read from the environment, as deployed).
    os.environ.setdefault("ENGRAM_SECRETS_KEY", REMOTE_SECRETS_KEY)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    if REMOTE:
        pytest.skip("about the embedded database file")
    return tmp_path / "engram.db"


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    if not REMOTE:
        yield f"file:{tmp_path / 'engram.db'}"
        return
    with SqldServer(tmp_path) as server:
        yield server.url


@pytest.fixture
def config(db_url: str, tmp_path: Path) -> Config:
    # Jobs are held in tests ("manual"), so queries embed pending memories themselves, on
    # sqld too (where a deployment leaves that to the embedding worker).
    # A remote database keeps no key file: its deployment configures one, as here.
    return Config(
        db_url=db_url,
        settings_cache_ttl_s=60,
        data_dir=tmp_path / "data",
        lazy_embedding=True,
        secrets_key=SecretStr(REMOTE_SECRETS_KEY) if REMOTE else None,
    )


@pytest.fixture
def engine(config: Config, clock: FrozenClock) -> Iterator[Engine]:
    engine = open_engine(config, clock=clock, jobs="manual")
    yield engine
    engine.close()


@pytest.fixture
def db(engine: Engine, config: Config) -> Iterator[Database]:
    """Raw SQL on the engine's database file (a second connection), to look inside."""
    database = Database(config.db_url)
    yield database
    database.close()
