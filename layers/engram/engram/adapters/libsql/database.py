"""One libSQL connection per process, serialised by a lock.

Why one connection: the ``libsql`` binding holds the GIL while a statement runs,
and several connections writing from threads fight over the file lock
("database is locked"); one connection with a lock is both faster and correct.
Two *processes* on one WAL file are safe (SQLite's own locking), which is how
Lambda instances or a local server plus a CLI share a database.

A remote URL (``libsql://``, ``https://``, ``wss://``...) is served by
:class:`~.hrana.HranaConnection` (one HTTP request per statement, every request bounded
by ``timeout_s``); a file by the ``libsql`` binding.

The connection runs in autocommit mode (``isolation_level=None``) and every
multi-statement write goes through :meth:`Database.transaction`, which opens
``BEGIN IMMEDIATE`` so a writer takes the write lock up front instead of failing
half-way on upgrade.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import libsql

from engram.adapters.libsql.hrana import HranaConnection, HranaResult, is_remote_url
from engram.domain.errors import StorageError

__all__ = ["Database", "Row", "database_file", "split_statements"]

Row = dict[str, Any]


def _local_path(url: str) -> tuple[str, str]:
    """(what to open, the file's path) for `file:relative/x.db`, `file:///abs/x.db`, a bare
    path or `:memory:`. A `file:` URI with parameters (`?mode=ro`) is opened as a URI."""
    if url == ":memory:":
        return url, url
    path = url
    if url.startswith("file://"):
        path = url[len("file://") :]
    elif url.startswith("file:"):
        path = url[len("file:") :]
    if "?" in path:
        return "file:" + path, path.split("?", 1)[0]
    return path, path


def database_file(url: str) -> str | None:
    """The file a local database lives in (``:memory:`` for none); None when remote."""
    if is_remote_url(url):
        return None
    return _local_path(url)[1]


def split_statements(script: str) -> list[str]:
    """Split SQL into complete statements (trigger bodies keep their inner ';').

    Needed because ``libsql``'s ``executescript`` ignores errors silently; running
    statements one by one makes a broken migration fail loudly.
    """
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        if not buffer and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise StorageError("SQL script ends with an incomplete statement")
    return statements


class Database:
    """A libSQL database: a local file, memory, or a remote server over Hrana."""

    def __init__(
        self,
        url: str,
        *,
        auth_token: str | None = None,
        busy_timeout_ms: int = 10_000,
        cache_mb: int = 64,
        timeout_s: float = 10.0,
    ):
        self.url = url
        self.is_remote = is_remote_url(url)
        self.read_only = False
        self._options: dict[str, Any] = {
            "auth_token": auth_token,
            "busy_timeout_ms": busy_timeout_ms,
            "cache_mb": cache_mb,
            "timeout_s": timeout_s,
        }
        self._lock = threading.RLock()
        self._closed = False
        self._conn: Any
        try:
            if self.is_remote:
                self._conn = HranaConnection(url, auth_token, timeout_s)
            else:
                target, path = _local_path(url)
                if path != ":memory:":
                    Path(path).parent.mkdir(parents=True, exist_ok=True)
                self._conn = libsql.connect(target, isolation_level=None)
                self.read_only = "mode=ro" in target
                if not self.read_only:
                    # WAL lets readers in other processes proceed during a write; NORMAL
                    # sync is durable across application crashes, which a memory store needs.
                    self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
                # SQLite's default page cache is 2 MB; rows with a vector and a context are
                # ~2.5 KB, and the FTS join touches every matching row: at 10k memories a
                # 64 MB cache took hybrid retrieval from 7.2 to 5.2 ms p50 (engine_bench).
                self._conn.execute(f"PRAGMA cache_size={-1024 * int(cache_mb)}")
                self._conn.execute("PRAGMA foreign_keys=ON")
                # A deleted or rewritten memory's text is zeroed in the file, not left in
                # free pages: forgetting means gone from disk too.
                self._conn.execute("PRAGMA secure_delete=ON")
        except ValueError as exc:
            raise StorageError(f"cannot open database: {exc}") from exc

    # -- statements ---------------------------------------------------------------

    @contextmanager
    def _held(self) -> Iterator[None]:
        """The connection's lock, for a local file (the binding's connection is not safe
        to share). A server needs none: each thread's transaction is its own stream
        (``HranaConnection``), so no thread ever waits on another's round trip, and a
        request is never held behind a background job's slow one."""
        if self.is_remote:
            yield
            return
        with self._lock:
            yield

    def _open(self) -> Any:
        """The connection (call with the lock held); a closed database is a StorageError,
        never a call into a closed driver handle (which panics inside the binding)."""
        if self._closed:
            raise StorageError("the database connection is closed")
        return self._conn

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._held():
            try:
                cursor = self._open().execute(sql, tuple(params))
                if isinstance(cursor, HranaResult):
                    rows, names = cursor.rows, cursor.names
                else:
                    rows = cursor.fetchall() or []  # None for statements without rows
                    names = [d[0] for d in cursor.description or ()]
            except ValueError as exc:
                raise StorageError(str(exc)) from exc
        return [dict(zip(names, row, strict=True)) for row in rows]

    def query_batch(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Row]]:
        """Several independent reads; against a server, in one round trip."""
        if not isinstance(self._conn, HranaConnection):
            return [self.query(sql, params) for sql, params in statements]
        with self._held():
            results = self._open().execute_many_statements(
                [(sql, tuple(params)) for sql, params in statements]
            )
        return [[dict(zip(r.names, row, strict=True)) for row in r.rows] for r in results]

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self.query_one(sql, params)
        return None if row is None else next(iter(row.values()))

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; returns the number of rows it changed."""
        with self._held():
            try:
                cursor = self._open().execute(sql, tuple(params))
                return int(cursor.rowcount)
            except ValueError as exc:
                raise StorageError(str(exc)) from exc

    def execute_deferred(self, sql: str, params: Sequence[Any] = ()) -> None:
        """A write nobody waits for (a counter). A file runs it now; a server gets it with
        the process's next request, sparing the caller a round trip. It may be lost if
        the process ends first."""
        if not isinstance(self._conn, HranaConnection):
            self.execute(sql, params)
            return
        with self._held():
            self._open().defer(sql, tuple(params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._held():
            try:
                self._open().executemany(sql, [tuple(r) for r in rows])
            except ValueError as exc:
                raise StorageError(str(exc)) from exc

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolls back on any exception.

        Re-entrant: a transaction opened inside another joins it.
        """
        with self._held():
            if self._open().in_transaction:
                yield self
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except ValueError as exc:
                raise StorageError(f"cannot begin transaction: {exc}") from exc
            try:
                yield self
            except BaseException:
                # A rollback that fails (the server is gone) must not hide why we roll back.
                with contextlib.suppress(ValueError, StorageError):
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                raise
            try:
                self._conn.execute("COMMIT")
            except (ValueError, StorageError) as exc:
                with contextlib.suppress(ValueError, StorageError):
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                raise StorageError(f"commit failed: {exc}") from exc

    def checkpoint(self) -> None:
        """Copy the WAL into the database file and truncate it (best effort: a reader in
        another process can hold it back; the next checkpoint finishes the job). After a
        forget this leaves the deleted text in neither file."""
        if self.is_remote or self.read_only:
            return
        with contextlib.suppress(StorageError):
            self.query("PRAGMA wal_checkpoint(TRUNCATE)")

    def table_exists(self, name: str) -> bool:
        count = self.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type IN ('table','view') AND name = ?",
            (name,),
        )
        return bool(count)

    def sibling(self) -> Database:
        """Another connection to the same database, for a long read off the request path
        (building a key's keyword postings) that must neither hold this connection's lock
        between its pages nor queue behind it (a server's round trips would add to the
        requests' own). This one itself for an in-memory database, which a second
        connection would not see."""
        _, path = (None, "") if self.is_remote else _local_path(self.url)
        if path == ":memory:":
            return self
        return Database(self.url, **self._options)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()
