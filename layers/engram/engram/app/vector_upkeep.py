"""Stored vectors kept in step with one embedder: the signature that says which made
them, a reset when it changes, and the pending memories embedded in batches."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engram.ports import Embedder, VectorRows, Vectors

__all__ = ["OnStored", "VectorMaintenance", "signature_of"]

log = logging.getLogger(__name__)

# Told the seqs written and their vectors (the Qdrant mirror).
OnStored = Callable[[list[int], Vectors], None]


def signature_of(embedder: Embedder, int8: bool) -> str:
    base = f"{embedder.source}:{embedder.model}:{embedder.dim}"
    return base + (":int8" if int8 else "")


@dataclass
class VectorMaintenance:
    """Keeps stored vectors in step with one embedder."""

    rows: VectorRows
    embedder: Embedder
    int8: bool
    now_ms: Callable[[], int]

    @property
    def signature(self) -> str:
        return signature_of(self.embedder, self.int8)

    def signature_matches(self) -> bool:
        return self.rows.meta().signature == self.signature

    def ensure_signature(self) -> bool:
        """True when the stored vectors were reset because the embedding changed."""
        if self.signature_matches():
            return False
        pending = self.rows.reset(self.signature, self.embedder.dim, self.now_ms())
        log.info(
            "embedding signature changed to %s: %d memories to re-embed", self.signature, pending
        )
        return True

    def embed_pending(
        self,
        owner: str | None,
        limit: int,
        on_stored: OnStored | None = None,
        ids: Sequence[str] | None = None,
    ) -> int:
        """Embed up to ``limit`` memories waiting for a vector (only those of ``ids`` when
        given); returns how many were stored.

        ``on_stored`` gets the seqs written and their vectors (the Qdrant mirror).
        """
        rows = self.rows.pending(owner, limit, ids)
        if not rows:
            return 0
        vectors = self.embedder.embed([r.content for r in rows])
        written = self.rows.store(list(zip(rows, vectors, strict=True)), self.int8)
        if written and on_stored is not None:
            kept = set(written)
            on_stored(
                written,
                np.stack([v for r, v in zip(rows, vectors, strict=True) if r.seq in kept]),
            )
        return len(written)

    def reindex(
        self, max_seconds: float, batch: int = 256, on_stored: OnStored | None = None
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
