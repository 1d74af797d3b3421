"""The access log, and the last-resort answer to a bug: one pure ASGI middleware.

Pure ASGI rather than ``@app.middleware("http")``: Starlette's ``BaseHTTPMiddleware``
runs the app in a task of its own and copies the response through a memory stream,
~0.4 ms of each chat request (py-spy, ``bench/proxy_overhead.py``) for a log line.
"""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..observability import logger
from .errors import internal_error

__all__ = ["AccessLog"]


class AccessLog:
    """Logs each request's method, route, status and time to answer (never bodies,
    queries or headers: they carry secrets and memories); an exception the app did not
    answer becomes ``internal_error``'s bare 500, logged without its message."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0
        answered = 0.0  # ms until the answer began, as before: not a stream's length, nor
        # the background work after it (queuing the extraction job)

        async def send_status(message: Message) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status = message["status"]
                answered = (time.perf_counter() - started) * 1000
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        except Exception as exc:
            if status:  # the answer has begun: it cannot become a 500 any more
                raise
            status = 500
            await internal_error(scope["path"], exc)(scope, receive, send)
        finally:
            logger.info(
                "request",
                extra={
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status or 500,
                    "ms": round(answered or (time.perf_counter() - started) * 1000, 2),
                },
            )
