"""Shared fixtures: a fresh real libSQL file per test, a controllable clock, and an engine
built by the composition root with queued jobs held until a test drains them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engram import Config, Engine, open_engine
from engram.adapters.libsql import Database


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


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "engram.db"


@pytest.fixture
def config(db_path: Path) -> Config:
    return Config(
        db_url=f"file:{db_path}", settings_cache_ttl_s=60, data_dir=db_path.parent / "data"
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
