"""libSQL's vector encodings, decoded with numpy.

F32_BLOB: ``dim`` little-endian float32. F8 (``vector8``): ``dim`` unsigned bytes,
padding to 4, then float32 ``alpha`` and ``shift`` (value = alpha * byte + shift),
then a type byte. Vectors are written by libSQL itself (``vector32(?)`` /
``vector8(?)``), so SQL's ``vector_distance_cos`` works on them too.
"""

from __future__ import annotations

import numpy as np

from engram.ports import Vectors

__all__ = ["decode", "f8_lengths", "to_f32_bytes"]


def to_f32_bytes(vector: Vectors) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def f8_lengths(dim: int) -> tuple[int, int]:
    """The shortest and longest F8 blob of dimension ``dim`` (F32: exactly ``4 * dim``)."""
    offset = (dim + 3) // 4 * 4
    return offset + 8, offset + 16


def decode(blob: bytes | None, dim: int) -> Vectors | None:
    """The float32 vector in ``blob``, or None when absent or of another dimension."""
    if blob is None:
        return None
    if len(blob) == 4 * dim:
        return np.frombuffer(blob, dtype="<f4").astype(np.float32)
    shortest, longest = f8_lengths(dim)
    if not shortest <= len(blob) <= longest:
        return None
    offset = (dim + 3) // 4 * 4
    quantized = np.frombuffer(blob[:dim], dtype=np.uint8).astype(np.float32)
    alpha, shift = np.frombuffer(blob[offset : offset + 8], dtype="<f4")
    return quantized * np.float32(alpha) + np.float32(shift)
