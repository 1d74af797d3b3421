"""Each request's database time, bounded as a whole (``ENGRAM_DB_TIMEOUT_S``): an ASGI
middleware opening the engine's per-request budget (engram/adapters/libsql/budget.py).

The export streams a whole database page by page for as long as it takes: it keeps the
per-round-trip bound only.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from engram.adapters.libsql.budget import database_budget

__all__ = ["DatabaseBudget"]

UNBUDGETED = frozenset({"/api/memory/export"})


class DatabaseBudget:
    def __init__(self, app: ASGIApp, *, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") in UNBUDGETED:
            await self.app(scope, receive, send)
            return
        # The thread pool running a route copies this context: its waits draw on it.
        with database_budget(self.seconds):
            await self.app(scope, receive, send)
