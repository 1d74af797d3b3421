"""Ports: what the engine needs from the outside, as Protocols.

Adapters (libSQL vectors, Qdrant, embedders, queues) implement these; the
engine depends on nothing else, so each tier can be swapped or faked at the
edge without touching retrieval logic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from .models import EmbeddingJob, ExtractionJob
from .storage.rows import OwnerFilter

__all__ = ["DenseScores", "JobQueue", "VectorTier"]


@dataclass(frozen=True)
class DenseScores:
    """Cosine similarity of the query to every memory of the owners.

    ``sims`` is -inf where a memory may not be returned (expired, past retention,
    another session, no vector yet), so arrays are shared with the index, not copied.
    """

    ids: Sequence[str]
    sims: npt.NDArray[np.float32]
    position: Mapping[str, int]  # id -> index into ids / sims
    speaker_masks: Mapping[str, npt.NDArray[np.bool_]]  # metadata.speaker -> its rows
    seq_position: Mapping[int, int] = field(default_factory=dict)  # row seq -> index
    # False when only the nearest few are scored (Qdrant): fusion then cannot treat an
    # unscored memory as "not allowed", and takes keyword rows as candidates too.
    complete: bool = True

    def top(self, k: int) -> list[tuple[str, float]]:
        allowed = int(np.count_nonzero(np.isfinite(self.sims)))
        k = min(k, allowed)
        if k <= 0:
            return []
        part = np.argpartition(-self.sims, k - 1)[:k]
        part = part[np.argsort(-self.sims[part], kind="stable")]
        return [(self.ids[i], float(self.sims[i])) for i in part]


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

    def dense(self, query: str, who: OwnerFilter, now_ms: int, cutoff_ms: int) -> DenseScores: ...


class JobQueue(Protocol):
    """Where jobs go to be processed off the request path (SQS, or in process).

    ``send`` must not block on processing; it raises ``EngramError`` when the job
    could not be queued (callers on the chat path log it and carry on).
    """

    def send(self, job: ExtractionJob | EmbeddingJob) -> None: ...
