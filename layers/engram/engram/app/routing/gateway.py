"""The one entry for memory operations from the edges: REST routes and MCP tools.

Each operation goes either to the primary backend, with its fallbacks
(``BackendManager``), or to libSQL whatever the primary is (``MemoryService``), and
``WHERE`` says which, so the split is stated once instead of being a choice each route
makes. What stays libSQL's needs what only libSQL keeps: the fact history, forgetting
with every trace (vectors, keyword postings, Qdrant points), import and export of the
whole key, pins (the profile tier is libSQL's), the hit rate and the storage probe.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from engram.app.memories import MemoryService
from engram.app.routing.manager import BackendManager
from engram.domain.models import (
    ForgetOutcome,
    HealthReport,
    Memory,
    MemoryCreate,
    MemoryForget,
    MemoryHistory,
    MemoryPage,
    MemoryQuery,
    MemoryStats,
    MemoryUpdate,
    RetrievalRequest,
    RetrievalResult,
    UpsertOutcome,
)

__all__ = ["WHERE", "MemoryGateway"]

Where = Literal["primary", "libsql"]

WHERE: dict[str, Where] = {
    "create": "primary",
    "get": "primary",
    "list_page": "primary",
    "update": "primary",
    "delete": "primary",
    "search": "primary",
    "forget": "libsql",
    "import_many": "libsql",
    "export": "libsql",
    "history": "libsql",
    "pin": "libsql",
    "stats": "libsql",
    "health": "libsql",
}


class MemoryGateway:
    def __init__(self, backends: BackendManager, memories: MemoryService) -> None:
        self._backends = backends
        self._memories = memories

    # -- routed to the primary backend and its fallbacks ---------------------------------

    def create(self, item: MemoryCreate) -> UpsertOutcome:
        return self._backends.create(item)

    def get(self, memory_id: str, owner: str | None = None) -> Memory | None:
        return self._backends.get(memory_id, owner)

    def list_page(self, query: MemoryQuery) -> MemoryPage:
        return self._backends.list_page(query)

    def update(
        self, memory_id: str, change: MemoryUpdate, owner: str | None = None
    ) -> Memory | None:
        return self._backends.update(memory_id, change, owner)

    def delete(self, memory_id: str, owner: str | None = None) -> bool:
        return self._backends.delete(memory_id, owner)

    def search(self, owner: str, request: RetrievalRequest) -> RetrievalResult:
        """A counted retrieval, as a chat's: the primary answers, a fallback on error."""
        return self._backends.retrieve(owner, request)

    # -- libSQL's, whatever the primary ---------------------------------------------------

    def forget(self, request: MemoryForget) -> ForgetOutcome:
        return self._memories.forget(request)

    def import_many(self, items: list[MemoryCreate]) -> list[UpsertOutcome]:
        return self._memories.upsert_many(items)

    def export(self, owner: str | None = None) -> Iterator[Memory]:
        return self._memories.export(owner)

    def history(self, memory_id: str, owner: str | None = None) -> MemoryHistory | None:
        return self._memories.versions(memory_id, owner)

    def pin(self, memory_id: str, pinned: bool | None, owner: str | None = None) -> Memory | None:
        return self._memories.pin(memory_id, pinned, owner)

    def stats(self, owner: str | None = None) -> MemoryStats:
        return self._memories.stats(owner)

    def health(self) -> HealthReport:
        return self._memories.health()
