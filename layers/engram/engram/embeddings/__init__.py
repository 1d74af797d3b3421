"""Embedders: remote (OpenAI-compatible), static (potion-base-8M), transformers
(MiniLM int8 ONNX), behind one port with a cache and a retry policy."""

from .base import Embedder, Vectors, normalize
from .cache import CachedEmbedder, RetryingEmbedder
from .resolve import Resolution, local_status, resolve_embedder

__all__ = [
    "CachedEmbedder",
    "Embedder",
    "Resolution",
    "RetryingEmbedder",
    "Vectors",
    "local_status",
    "normalize",
    "resolve_embedder",
]
