"""Ports of vectors: embedders, stored vectors, vector tiers, Qdrant, the reranker."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from engram.domain.models import (
    EmbeddingProvider,
    Memory,
    MemorySettings,
    OwnerFilter,
    QdrantHealth,
    QdrantHit,
    QdrantSettings,
)

__all__ = [
    "DenseScores",
    "Embedder",
    "EmbedderCatalog",
    "EmbedderChoice",
    "EmbeddingCache",
    "PendingVector",
    "PointStore",
    "PointStoreFactory",
    "Reranker",
    "VectorMeta",
    "VectorRows",
    "VectorTier",
    "Vectors",
]


Vectors = npt.NDArray[np.float32]


# -- vectors ----------------------------------------------------------------------------


class Embedder(Protocol):
    """Texts -> unit-length float32 vectors, one row per text.

    ``source`` / ``model`` / ``dim`` form the embedding signature: vectors of two
    signatures are never compared. Failures raise ``EmbeddingError`` (retry once
    only when it is a ``TransientEmbeddingError``).
    """

    @property
    def source(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


@runtime_checkable
class EmbeddingCache(Protocol):
    """An embedder that keeps vectors of texts it has seen, and can drop them."""

    def forget(self, texts: Sequence[str]) -> int:
        """Drop the cached vectors of ``texts``; how many were cached."""
        ...


@dataclass(frozen=True)
class EmbedderChoice:
    """The embedder the settings resolve to, or None and why not.

    ``source`` is the source the settings choose (``MemorySettings.chosen_embedding_source``)
    whether or not this process could build it: an ``embedder`` of None with a
    ``source`` means the configured embedder is unavailable here; without a ``source``,
    no embedding source is enabled at all.
    """

    embedder: Embedder | None
    reason: str | None = None
    source: str | None = None

    @property
    def unavailable(self) -> bool:
        """The settings choose an embedder this process cannot build."""
        return self.embedder is None and self.source is not None


class EmbedderCatalog(Protocol):
    """Which embedders exist here and which one settings select (SPEC section 6)."""

    def resolve(self, settings: MemorySettings) -> EmbedderChoice:
        """The embedder of ``settings.chosen_embedding_source()``, never another one."""
        ...

    def providers(self, settings: MemorySettings) -> list[EmbeddingProvider]: ...


@dataclass(frozen=True)
class PendingVector:
    seq: int
    owner: str
    content: str


@dataclass(frozen=True)
class VectorMeta:
    """The embedding the stored vectors belong to."""

    dim: int | None = None
    signature: str | None = None
    last_reset_at: int | None = None


class VectorRows(Protocol):
    """Vectors stored beside their rows, and the bookkeeping of which still need one."""

    def pending(
        self, owner: str | None, limit: int, ids: Sequence[str] | None = None
    ) -> list[PendingVector]:
        """Memories waiting for a vector (one owner, or all; only those of ``ids`` when
        given), oldest first."""
        ...

    def pending_count(self, owner: str | None = None) -> int: ...

    def observed_version(self, owner: str) -> int:
        """The owner's write version (it moves with every write to its memories), read
        once per ``SearchIndex.read_scope``."""
        ...

    def counts(self) -> tuple[int, int]:
        """(memories, memories waiting for a vector)."""
        ...

    def store(self, items: list[tuple[PendingVector, Vectors]], int8: bool) -> list[int]:
        """Store vectors of rows whose content is still what was embedded; the seqs written."""
        ...

    def memories(self, seqs: list[int]) -> list[tuple[int, Memory]]:
        """(seq, memory) of the given rows (maintenance: any owner)."""
        ...

    def embedded_after(
        self, seq: int, limit: int, dim: int
    ) -> list[tuple[int, Memory, Vectors | None]]:
        """Memories with a current vector after ``seq`` and that vector (None when it is not
        of dimension ``dim``), in seq order: a backfill's cursor."""
        ...

    def embedded(
        self, owner: str, ids: Sequence[str], dim: int
    ) -> list[tuple[int, Memory, Vectors | None]]:
        """Those of the owner's memories ``ids`` that have a current vector, with it (None
        when it is not of dimension ``dim``)."""
        ...

    def embedded_count(self) -> int: ...

    def owners(self) -> list[str]: ...

    def meta(self) -> VectorMeta: ...

    def reset(self, signature: str, dim: int, now_ms: int) -> int:
        """A new embedding: every vector is stale. Returns how many rows need one."""
        ...

    def mark_all_pending(self) -> int: ...


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
    seqs: Sequence[int] = ()  # index -> row seq, when the store knows it
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
    """A store that scores the owners' memories against a query vector."""

    @property
    def store(self) -> str:
        """Which store answers: ``libsql`` or ``qdrant``."""
        ...

    def dense(
        self, query: Vectors, who: OwnerFilter, now_ms: int, cutoff_ms: int
    ) -> DenseScores: ...


class PointStore(Protocol):
    """A vector database holding one point per memory (Qdrant)."""

    def upsert(self, points: Sequence[tuple[str, Sequence[float], dict[str, Any]]]) -> None: ...

    def delete(self, memory_ids: Sequence[str]) -> None: ...

    def search(
        self,
        vector: Sequence[float],
        owners: Sequence[str],
        session_id: str | None,
        top_k: int,
        now_unix: float,
        cutoff_unix: float,
    ) -> list[QdrantHit]: ...

    def count(self) -> int: ...

    def cleanup(self, now_unix: float, cutoff_unix: float, dry_run: bool = False) -> int: ...

    def health(self) -> QdrantHealth: ...

    def close(self) -> None: ...


# Builds the store for the current Qdrant settings (again whenever they change).
PointStoreFactory = Callable[[QdrantSettings], PointStore]


class Reranker(Protocol):
    def order(self, query: str, documents: Sequence[str]) -> list[int]:
        """Indexes of ``documents``, most relevant first; ``EngramError`` on failure."""
        ...
