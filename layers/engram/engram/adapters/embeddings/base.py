"""What every local and remote embedder shares."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engram.ports import Vectors

__all__ = ["Vectors", "normalize"]


def normalize(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to unit length; an all-zero row (no known token) stays zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    result: Vectors = (matrix / norms).astype(np.float32, copy=False)
    return result
