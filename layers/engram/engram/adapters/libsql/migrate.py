"""Versioned SQL migrations, applied at start-up and recorded.

Files are ``migrations/NNNN_name.sql``. Each is applied in its own
``BEGIN IMMEDIATE`` transaction: the write lock serialises two processes
starting at once, and the second finds the version recorded and skips it.
A recorded migration whose file changed since is refused (``MigrationError``):
edit the schema with a new migration, never by rewriting an applied one.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from importlib import resources

from engram.adapters.libsql.database import Database, split_statements
from engram.domain.errors import MigrationError, StorageError

__all__ = [
    "LibsqlStorageInfo",
    "Migration",
    "applied_versions",
    "apply_migrations",
    "load_migrations",
    "schema_version",
]

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode("utf-8")).hexdigest()


def load_migrations() -> list[Migration]:
    found: list[Migration] = []
    for entry in resources.files("engram.adapters.libsql.migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError("two migrations share a version number")
    return found


def apply_migrations(db: Database, migrations: list[Migration] | None = None) -> list[int]:
    """Bring the schema up to date; returns the versions applied by this call."""
    migrations = load_migrations() if migrations is None else migrations
    if _all_applied(db, migrations):
        return []  # one read, no write: the usual start (and a read-only database's)
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " checksum TEXT NOT NULL, applied_at INTEGER NOT NULL)"
    )
    applied: list[int] = []
    for migration in migrations:
        try:
            with db.transaction():
                row = db.query_one(
                    "SELECT checksum FROM schema_migrations WHERE version = ?",
                    (migration.version,),
                )
                if row is not None:
                    if row["checksum"] != migration.checksum:
                        raise MigrationError(
                            f"migration {migration.version}_{migration.name} changed after "
                            "it was applied; add a new migration instead"
                        )
                    continue
                for statement in split_statements(migration.sql):
                    db.execute(statement)
                db.execute(
                    "INSERT INTO schema_migrations(version, name, checksum, applied_at)"
                    " VALUES (?, ?, ?, ?)",
                    (migration.version, migration.name, migration.checksum, _now_ms()),
                )
                applied.append(migration.version)
        except MigrationError:
            raise
        except StorageError as exc:
            raise MigrationError(
                f"migration {migration.version}_{migration.name} failed: {exc}"
            ) from exc
    return applied


def _all_applied(db: Database, migrations: list[Migration]) -> bool:
    """Every migration recorded with its current checksum (False on any doubt)."""
    try:
        rows = db.query("SELECT version, checksum FROM schema_migrations")
    except StorageError:  # no table yet: a new database
        return False
    recorded = {int(r["version"]): r["checksum"] for r in rows}
    return all(recorded.get(m.version) == m.checksum for m in migrations)


def schema_version(db: Database) -> int:
    return int(db.scalar("SELECT max(version) FROM schema_migrations") or 0)


def applied_versions(db: Database) -> list[int]:
    return [int(r["version"]) for r in db.query("SELECT version FROM schema_migrations")]


class LibsqlStorageInfo:
    """The ``StorageInfo`` port: what the status report says about the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def schema_version(self) -> int:
        return schema_version(self.db)

    @property
    def is_remote(self) -> bool:
        return self.db.is_remote


def _now_ms() -> int:
    return int(time.time() * 1000)
