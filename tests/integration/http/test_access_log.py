"""The access log (shared/http/access.py): one line per request, with the time to answer."""

from __future__ import annotations

import asyncio
import logging

from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from shared.http.access import AccessLog


async def slow_tail(scope: Scope, receive: Receive, send: Send) -> None:
    """Answers at once, then keeps the connection for work after the answer (a stream's
    length, a background task)."""
    await send({"type": "http.response.start", "status": 201, "headers": []})
    await send({"type": "http.response.body", "body": b"ok", "more_body": True})
    await asyncio.sleep(0.3)
    await send({"type": "http.response.body", "body": b""})


CONTENT = "secret" + " plans"  # so no source line quoted in a traceback holds it


async def broken(scope: Scope, receive: Receive, send: Send) -> None:
    raise RuntimeError(f"the memory text {CONTENT!r} leaked into an exception")


def logged(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == "request"]


def test_the_time_logged_is_the_time_to_answer(caplog):
    client = TestClient(AccessLog(slow_tail))  # no lifespan: these apps serve HTTP only
    with caplog.at_level(logging.INFO):
        assert client.get("/api/memory?q=secret").status_code == 201
    (line,) = logged(caplog)
    assert (line.method, line.path, line.status) == ("GET", "/api/memory", 201)
    assert line.ms < 250  # not the 300 ms of work after the answer began
    assert "secret" not in str(vars(line))  # the query string is never logged


def test_an_unanswered_exception_is_a_bare_500_logged_as_such(caplog):
    client = TestClient(AccessLog(broken))
    with caplog.at_level(logging.INFO):
        response = client.post("/v1/chat/completions", json={})
    assert response.status_code == 500
    assert response.json()["error"]["type"] == "internal_error"
    (line,) = logged(caplog)
    assert line.status == 500
    assert all("secret plans" not in str(vars(r)) for r in caplog.records)
