"""Ports: what the engine needs from the outside, as Protocols.

Adapters (libSQL vectors, Qdrant, embedders, queues) implement these; the
engine depends on nothing else, so each tier can be swapped or faked at the
edge without touching retrieval logic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .models import EmbeddingJob, ExtractionJob
from .storage.memories import OwnerFilter

__all__ = ["JobQueue", "VectorHit", "VectorTier"]


@dataclass(frozen=True)
class VectorHit:
    memory_id: str
    similarity: float  # cosine similarity, higher is closer


class VectorTier(Protocol):
    """A vector search the retriever can ask for the memories nearest a query.

    Implementations must apply the owner filter inside their own query (tenant
    isolation is never a post-filter) and raise ``EngramError`` subclasses on
    failure; the retriever then degrades to the keyword tier.
    """

    @property
    def store(self) -> str:
        """Which store answers: ``libsql`` or ``qdrant``."""
        ...

    @property
    def embedding_source(self) -> str:
        """The embedder that produced the query vector (``static``, ``remote``...)."""
        ...

    def search(
        self, query: str, who: OwnerFilter, now_ms: int, cutoff_ms: int, k: int
    ) -> list[VectorHit]: ...


class JobQueue(Protocol):
    """Where jobs go to be processed off the request path (SQS, or in process).

    ``send`` must not block on processing; it raises ``EngramError`` when the job
    could not be queued (callers on the chat path log it and carry on).
    """

    def send(self, job: ExtractionJob | EmbeddingJob) -> None: ...
