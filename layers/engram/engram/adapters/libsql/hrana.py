"""A libSQL server connection over Hrana-over-HTTP (sqld, Turso), on httpx.

Why not the ``libsql`` binding for remote URLs: measured against sqld 0.24, it sends
a ``describe`` before every statement (two HTTP round trips per statement: 14 for
one warm retrieval), it holds the GIL while it waits on the network and has no
timeout (a black-holed path hung the whole process for over 60 s), and it cannot
open ``wss://`` URLs. This client sends one HTTP request per statement, folds a
transaction's ``BEGIN`` into its first statement's request and ``COMMIT`` with the
stream's close into one, runs ``executemany`` as one pipeline, and bounds every
request by ``timeout_s`` (httpx waits with the GIL released, so other threads go on).
Threads share one client but never a stream: a request is not held behind a background
job's round trip.

The wire format is the sqld HTTP API v2 (``POST /v2/pipeline``): a stream is tied
together by a baton the server returns and the next request carries.
"""

from __future__ import annotations

import base64
import logging
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import httpx

from engram.adapters.libsql.budget import Breaker, remaining, spend
from engram.domain.errors import StorageError

__all__ = ["HranaConnection", "HranaResult", "http_base_url", "is_remote_url"]

log = logging.getLogger(__name__)
# Deferred writes sent on their own once this many are waiting.
_MAX_DEFERRED = 32
_SCHEMES = {"libsql": "https", "https": "https", "http": "http", "wss": "https", "ws": "http"}


def is_remote_url(url: str) -> bool:
    """A URL this client serves (anything else is a local file for the binding)."""
    return url.split("://", 1)[0] in _SCHEMES if "://" in url else False


def http_base_url(url: str) -> str:
    """The HTTP base of a libSQL URL: ``libsql://`` and ``wss://`` are served over HTTPS
    (``?tls=0`` means plain HTTP, as libSQL's own clients read it), ``ws://`` over HTTP.
    Anything else is a clear error here rather than a failure at the first request."""
    parts = urlsplit(url)
    scheme = _SCHEMES.get(parts.scheme)
    if scheme is None or not parts.hostname:
        raise StorageError(
            "ENGRAM_DB_URL must be file:<path>, or libsql://, https://, http://, wss:// or ws://"
            " followed by a host"
        )
    tls = parse_qs(parts.query).get("tls", [""])[0]
    if tls == "0" and parts.scheme in ("libsql", "wss"):
        scheme = "http"
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


@dataclass(frozen=True)
class HranaResult:
    names: list[str]
    rows: list[tuple[Any, ...]]
    rowcount: int


def _arg(value: Any) -> dict[str, Any]:
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool | int):
        return {"type": "integer", "value": str(int(value))}
    if isinstance(value, float):
        if not math.isfinite(value):
            raise StorageError("a non-finite number cannot be stored")
        return {"type": "float", "value": value}
    if isinstance(value, str):
        return {"type": "text", "value": value}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"type": "blob", "base64": base64.b64encode(bytes(value)).decode("ascii")}
    raise StorageError(f"cannot bind a {type(value).__name__}")


def _value(cell: dict[str, Any]) -> Any:
    kind = cell.get("type")
    if kind == "integer":
        return int(cell["value"])
    if kind == "float":
        return float(cell["value"])
    if kind == "text":
        return cell["value"]
    if kind == "blob":
        data = cell.get("base64", "")
        return base64.b64decode(data + "=" * (-len(data) % 4))  # the server drops padding
    return None


def _statement(sql: str, params: Sequence[Any]) -> dict[str, Any]:
    return {
        "type": "execute",
        "stmt": {"sql": sql, "args": [_arg(p) for p in params], "want_rows": True},
    }


class _Stream(threading.local):
    """A thread's transaction: its baton, and a BEGIN waiting to travel with the first
    statement. A statement outside a transaction is a stream of its own (no baton), so
    threads never wait on each other's round trips."""

    baton: str | None = None
    pending_begin: str | None = None
    in_transaction: bool = False


class HranaConnection:
    """Safe to share between threads: each thread's transaction is its own stream, and
    the HTTP client pools connections; nothing is locked across a round trip."""

    def __init__(self, url: str, auth_token: str | None, timeout_s: float) -> None:
        self.url = http_base_url(url) + "/v2/pipeline"
        # Uncompressed: sqld's gzip arrives in chunks of ~64 bytes, each an event for
        # the HTTP parser (2 MB of index rows: 32,550 chunks, 849 ms to read; 36 ms as
        # identity, for a body 34% larger). The vectors are base64 and barely compress.
        headers = {"Accept-Encoding": "identity"}
        if auth_token:
            headers["Authorization"] = f"Bearer {auth_token}"
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout_s),
            # Pooled connections are reused by every request of the process (no TCP or
            # TLS handshake per statement); one per thread in flight.
            limits=httpx.Limits(max_connections=8, max_keepalive_connections=4),
        )
        self.round_trips = 0
        self._timeout_s = timeout_s
        self._breaker = Breaker()
        self._stream = _Stream()
        self._deferred: list[dict[str, Any]] = []
        self._shared = threading.Lock()  # the deferred writes and the counter, never I/O

    @property
    def in_transaction(self) -> bool:
        """Whether the calling thread has a transaction open."""
        return self._stream.in_transaction

    # -- the driver surface Database uses ---------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] = ()) -> HranaResult:
        word = sql.lstrip()[:16].upper()
        if word.startswith("BEGIN"):
            stream = self._stream
            if stream.in_transaction:
                raise StorageError("cannot start a transaction within a transaction")
            stream.pending_begin, stream.in_transaction = sql, True
            return HranaResult([], [], 0)
        if word.startswith(("COMMIT", "END", "ROLLBACK")):
            return self._finish(sql)
        return self._run([_statement(sql, params)])[0]

    def execute_many_statements(
        self, statements: Sequence[tuple[str, Sequence[Any]]]
    ) -> list[HranaResult]:
        """Several statements in one request; their results in order."""
        return self._run([_statement(sql, params) for sql, params in statements])

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self._run([_statement(sql, row) for row in rows])

    def defer(self, sql: str, params: Sequence[Any] = ()) -> None:
        """A write no caller waits for (a counter): it travels with the next request."""
        with self._shared:
            self._deferred.append(_statement(sql, params))
            full = len(self._deferred) >= _MAX_DEFERRED
        if full:
            self._run([])

    def close(self) -> None:
        if self._deferred and not self.in_transaction:
            try:
                self._run([])
            except StorageError as exc:
                log.warning("deferred writes lost at close: %s", exc)
        self._abandon()
        self._http.close()

    # -- streams ------------------------------------------------------------------------

    def _run(self, requests: list[dict[str, Any]]) -> list[HranaResult]:
        stream = self._stream
        count, prefix = len(requests), 0
        if stream.pending_begin is not None:
            requests = [_statement(stream.pending_begin, ()), *requests]
            stream.pending_begin, prefix = None, 1
        with self._shared:
            deferred, self._deferred = self._deferred, []
        requests = [*deferred, *requests]
        if not stream.in_transaction:
            requests = [*requests, {"type": "close"}]
        results = self._post(requests)
        for result in results[: len(deferred)]:
            if result.get("type") == "error":
                log.warning("a deferred write failed: %s", _message(result))
        results = results[len(deferred) :]
        if stream.in_transaction and prefix and results[0].get("type") != "ok":
            self._abandon()
            raise StorageError(f"cannot begin transaction: {_message(results[0])}")
        out: list[HranaResult] = []
        for result in results[prefix : prefix + count]:
            if result.get("type") == "error":
                raise StorageError(_message(result))
            response = result.get("response") or {}
            if response.get("type") != "execute":
                continue
            body = response["result"]
            out.append(
                HranaResult(
                    [c.get("name") or "" for c in body.get("cols", [])],
                    [tuple(_value(cell) for cell in row) for row in body.get("rows", [])],
                    int(body.get("affected_row_count") or 0),
                )
            )
        return out

    def _finish(self, sql: str) -> HranaResult:
        """COMMIT or ROLLBACK, and the stream's close, in one request."""
        if not self._stream.in_transaction:
            raise StorageError("no transaction is open")
        if self._stream.pending_begin is not None:  # nothing ran: nothing to commit or undo
            self._abandon()
            return HranaResult([], [], 0)
        try:
            results = self._post([_statement(sql, ()), {"type": "close"}])
        finally:
            self._abandon()
        if results and results[0].get("type") == "error":
            raise StorageError(_message(results[0]))
        return HranaResult([], [], 0)

    def _abandon(self) -> None:
        stream = self._stream
        stream.baton, stream.pending_begin, stream.in_transaction = None, None, False

    def _post(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        try:
            self._breaker.check()
            bound = remaining(self._timeout_s)  # the request's budget, when it has one
        except StorageError:
            self._abandon()
            raise
        with self._shared:
            self.round_trips += 1
        stream = self._stream
        started = time.monotonic()
        try:
            response = self._http.post(
                self.url, json={"baton": stream.baton, "requests": requests}, timeout=bound
            )
        except httpx.TimeoutException as exc:
            self._abandon()  # the server drops the stream; a new one starts next time
            self._breaker.failed()
            raise StorageError(
                f"the database did not answer in time ({type(exc).__name__})"
            ) from exc
        except httpx.HTTPError as exc:
            self._abandon()
            self._breaker.failed()
            raise StorageError(f"the database is unreachable ({type(exc).__name__})") from exc
        finally:
            spend(time.monotonic() - started)
        self._breaker.succeeded()  # it answered, whatever it said
        if response.status_code != 200:
            self._abandon()
            detail = response.text[:200]
            if response.status_code in (401, 403):
                raise StorageError(f"the database refused the credentials ({detail})")
            raise StorageError(f"the database answered {response.status_code}: {detail}")
        body = response.json()
        stream.baton = body.get("baton")
        if body.get("base_url"):
            self.url = http_base_url(body["base_url"]) + "/v2/pipeline"
        results: list[dict[str, Any]] = body.get("results", [])
        return results


def _message(result: dict[str, Any]) -> str:
    error = result.get("error") or {}
    return str(error.get("message") or "the database refused the statement")
