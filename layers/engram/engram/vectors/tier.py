"""The libSQL vector tier: vectors beside the rows, searched in memory.

Also the maintenance around it: the embedding signature (``source:model:dim[:int8]``)
is checked before use, and a change marks every memory for re-embedding; pending
memories are embedded lazily at query time (a bounded batch), by the embedding
worker, and by explicit reindex batches.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..embeddings.cache import CachedEmbedder
from ..ports import DenseScores
from ..storage.rows import OwnerFilter
from ..storage.search import SearchRepository
from .encoding import to_f32_bytes
from .index import IndexCache

__all__ = ["LibsqlVectorTier", "VectorMaintenance", "signature_of"]

log = logging.getLogger(__name__)


def signature_of(embedder: CachedEmbedder, int8: bool) -> str:
    base = f"{embedder.source}:{embedder.model}:{embedder.dim}"
    return base + (":int8" if int8 else "")


@dataclass
class VectorMaintenance:
    """Keeps stored vectors in step with the active embedder."""

    search: SearchRepository
    embedder: CachedEmbedder
    int8: bool
    now_ms: Callable[[], int]

    @property
    def signature(self) -> str:
        return signature_of(self.embedder, self.int8)

    def ensure_signature(self) -> bool:
        """True when the stored vectors were reset because the embedding changed."""
        meta = self.search.vector_meta()
        if meta.signature == self.signature:
            return False
        pending = self.search.reset_vectors(self.signature, self.embedder.dim, self.now_ms())
        log.info(
            "embedding signature changed to %s: %d memories to re-embed", self.signature, pending
        )
        return True

    def embed_pending(
        self,
        owner: str | None,
        limit: int,
        on_stored: Callable[[list[int], np.ndarray], None] | None = None,
    ) -> int:
        """Embed up to ``limit`` memories waiting for a vector; returns how many were stored.

        ``on_stored`` gets the seqs written and their vectors (the Qdrant mirror).
        """
        rows = self.search.pending_vectors(owner, limit)
        if not rows:
            return 0
        vectors = self.embedder.embed([r["content"] for r in rows])
        items = [
            (int(r["seq"]), str(r["api_key_id"]), str(r["content"]), to_f32_bytes(v))
            for r, v in zip(rows, vectors, strict=True)
        ]
        written = self.search.store_vectors(items, self.int8)
        if written and on_stored is not None:
            kept = set(written)
            on_stored(
                written,
                np.stack([v for r, v in zip(rows, vectors, strict=True) if int(r["seq"]) in kept]),
            )
        return len(written)

    def reindex(
        self,
        max_seconds: float,
        batch: int = 256,
        on_stored: Callable[[list[int], np.ndarray], None] | None = None,
    ) -> int:
        """Embed pending memories in batches until none remain or time is up."""
        deadline = time.monotonic() + max_seconds
        done = 0
        while time.monotonic() < deadline:
            stored = self.embed_pending(None, batch, on_stored)
            done += stored
            if stored == 0:
                break
        return done


class LibsqlVectorTier:
    store = "libsql"

    def __init__(
        self,
        maintenance: VectorMaintenance,
        cache: IndexCache,
        *,
        lazy_batch: int = 512,
    ) -> None:
        self.maintenance = maintenance
        self.cache = cache
        self.lazy_batch = lazy_batch

    @property
    def embedding_source(self) -> str:
        return self.maintenance.embedder.source

    def dense(self, query: str, who: OwnerFilter, now_ms: int, cutoff_ms: int) -> DenseScores:
        maintenance = self.maintenance
        maintenance.ensure_signature()
        for owner in who.owners:
            # Memories written before an embedder existed (or by a process without one)
            # get their vectors here, a bounded batch per query.
            maintenance.embed_pending(owner, self.lazy_batch)
        query_vector = maintenance.embedder.embed([query])[0]
        parts = []
        for owner in who.owners:
            index = self.cache.get(owner, maintenance.embedder.dim, maintenance.search)
            sims = index.matrix @ query_vector
            sims[~index.allowed(now_ms, cutoff_ms, who.session_id)] = -np.inf
            masks = {name: mask[: index.n] for name, mask in index.speaker_masks.items()}
            parts.append(DenseScores(index.ids, sims, index.position, masks, index.seq_position))
        return parts[0] if len(parts) == 1 else _concat(parts)


def _concat(parts: list[DenseScores]) -> DenseScores:
    """Several owners' scores as one (global scope: the key's own and the shared ones)."""
    ids = [i for part in parts for i in part.ids]
    sims = np.concatenate([part.sims for part in parts])
    names = {name for part in parts for name in part.speaker_masks}
    masks = {
        name: np.concatenate(
            [part.speaker_masks.get(name, np.zeros(len(part.ids), dtype=bool)) for part in parts]
        )
        for name in names
    }
    seqs: dict[int, int] = {}
    offset = 0
    for part in parts:
        seqs.update({seq: offset + pos for seq, pos in part.seq_position.items()})
        offset += len(part.ids)
    return DenseScores(ids, sims, {memory_id: i for i, memory_id in enumerate(ids)}, masks, seqs)
