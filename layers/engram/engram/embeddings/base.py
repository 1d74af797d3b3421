"""The embedder port and what every source shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

__all__ = ["Embedder", "Vectors", "normalize"]

Vectors = npt.NDArray[np.float32]


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


def normalize(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to unit length; an all-zero row (no known token) stays zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    result: Vectors = (matrix / norms).astype(np.float32, copy=False)
    return result
