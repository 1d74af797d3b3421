"""Building engines from configuration.

``open_engine`` makes a new engine (tests, CLI); ``build_engine`` caches one per
database URL for the life of the process, which is what a Lambda container or
the local server wants: the connection and the migrations check happen once.
"""

from __future__ import annotations

import threading

from .config import Config
from .engine import Engine
from .storage import Database, apply_migrations

__all__ = ["build_engine", "open_engine", "reset_engines"]

_engines: dict[str, Engine] = {}
_lock = threading.Lock()


def open_engine(config: Config) -> Engine:
    token = config.db_auth_token.get_secret_value() if config.db_auth_token else None
    db = Database(config.db_url, auth_token=token, cache_mb=config.db_cache_mb)
    apply_migrations(db)
    return Engine(db, config)


def build_engine(config: Config | None = None) -> Engine:
    config = config if config is not None else Config()
    with _lock:
        engine = _engines.get(config.db_url)
        if engine is None:
            engine = _engines[config.db_url] = open_engine(config)
        return engine


def reset_engines() -> None:
    """Close and forget cached engines (tests, and the CLI before exit)."""
    with _lock:
        for engine in _engines.values():
            engine.close()
        _engines.clear()
