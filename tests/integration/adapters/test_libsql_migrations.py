import multiprocessing

import pytest

from engram import MigrationError
from engram.adapters.libsql import Database, apply_migrations
from engram.adapters.libsql.database import split_statements
from engram.adapters.libsql.migrate import Migration, load_migrations


def test_fresh_database_gets_every_migration_recorded(db_url: str):
    db = Database(db_url)
    applied = apply_migrations(db)
    assert applied == [m.version for m in load_migrations()]
    rows = db.query("SELECT version, checksum FROM schema_migrations ORDER BY version")
    assert [r["checksum"] for r in rows] == [m.checksum for m in load_migrations()]
    for table in ("memories", "memory_fts", "settings", "api_keys", "vector_meta"):
        assert db.table_exists(table), table
    assert db.scalar("SELECT count(*) FROM vector_meta") == 1


def test_running_twice_applies_nothing(db_url: str):
    db = Database(db_url)
    apply_migrations(db)
    assert apply_migrations(db) == []
    assert apply_migrations(Database(db_url)) == []


def _migrate(url: str) -> list[int]:
    return apply_migrations(Database(url))


def test_two_processes_migrating_at_once_apply_each_version_once(db_url: str):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.map(_migrate, [db_url] * 2)
    versions = [m.version for m in load_migrations()]
    assert sorted(results[0] + results[1]) == versions  # each applied by exactly one process
    db = Database(db_url)
    assert db.scalar("SELECT count(*) FROM schema_migrations") == len(versions)


def test_an_edited_migration_is_refused(db_url: str):
    db = Database(db_url)
    apply_migrations(db, [Migration(1, "one", "CREATE TABLE a (x);")])
    with pytest.raises(MigrationError, match="changed after it was applied"):
        apply_migrations(db, [Migration(1, "one", "CREATE TABLE a (x, y);")])


def test_a_failing_migration_leaves_nothing_behind(db_url: str):
    db = Database(db_url)
    broken = Migration(1, "broken", "CREATE TABLE half (x);\nINSERT INTO missing VALUES (1);\n")
    with pytest.raises(MigrationError, match="no such table: missing"):
        apply_migrations(db, [broken])
    assert not db.table_exists("half")
    assert db.scalar("SELECT count(*) FROM schema_migrations") == 0


def test_statements_split_keeps_trigger_bodies_whole():
    sql = (
        "-- comment\nCREATE TABLE t (x);\n\n"
        "CREATE TRIGGER tr AFTER INSERT ON t BEGIN\n  INSERT INTO t VALUES (1);\nEND;\n"
    )
    parts = split_statements(sql)
    assert len(parts) == 2
    assert parts[1].startswith("CREATE TRIGGER") and parts[1].endswith("END;")
