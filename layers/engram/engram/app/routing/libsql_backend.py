"""libSQL as a ``MemoryBackend``: the default primary, and the usual fallback.

Its operations are the memory use cases themselves (redaction, upsert by key, the
embedding queue, on-remove hooks) and its search is Engram's whole retrieval: hybrid
keyword and vector ranking, the relevance floor, standing instructions, the budget.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from engram.app.memories import MemoryService
from engram.app.reading import Read
from engram.app.retrieval import Retriever
from engram.domain.models import (
    ExtractionJob,
    ExtractionOutcome,
    HealthReport,
    Memory,
    MemoryCreate,
    MemoryPage,
    MemoryQuery,
    MemoryUpdate,
    RetrievalRequest,
    RetrievalResult,
    UpsertOutcome,
)

__all__ = ["LIBSQL", "LibsqlBackend", "Reconciling"]

LIBSQL = "libsql"


@runtime_checkable
class Reconciling(Protocol):
    """A backend that reconciles what a chat teaches with what it keeps (a corrected fact
    retires the old one, with history). Any other backend receives the facts through
    ``create``, keyed like libSQL's, so the same fact again replaces its memory."""

    def learn(self, job: ExtractionJob, read: Read) -> ExtractionOutcome: ...


class LibsqlBackend:
    name = LIBSQL
    kind = LIBSQL

    def __init__(self, memories: MemoryService, retriever: Retriever) -> None:
        self.memories = memories
        self.retriever = retriever

    def create(self, item: MemoryCreate) -> UpsertOutcome:
        return self.memories.upsert(item)

    def get(self, memory_id: str, owner: str | None) -> Memory | None:
        return self.memories.get(memory_id, owner)

    def update(self, memory_id: str, owner: str | None, changes: MemoryUpdate) -> Memory | None:
        return self.memories.update(memory_id, changes, owner)

    def delete(self, memory_id: str, owner: str | None) -> bool:
        return self.memories.delete(memory_id, owner)

    def list_page(self, query: MemoryQuery) -> MemoryPage:
        return self.memories.list_page(query)

    def search(
        self, api_key_id: str, request: RetrievalRequest, *, read_only: bool
    ) -> RetrievalResult:
        if read_only:
            return self.retriever.preview(api_key_id, request)
        return self.retriever.retrieve(api_key_id, request)

    def health(self) -> HealthReport:
        return self.memories.health()

    def learn(self, job: ExtractionJob, read: Read) -> ExtractionOutcome:
        return self.memories.reconcile(job, read)
