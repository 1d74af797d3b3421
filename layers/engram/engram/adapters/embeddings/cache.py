"""Wrappers every embedder gets: an LRU + TTL cache, and the retry policy."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence

import numpy as np
from cachetools import TTLCache

from engram.domain.errors import TransientEmbeddingError
from engram.ports import Embedder, Vectors

__all__ = ["CachedEmbedder", "RetryingEmbedder"]

log = logging.getLogger(__name__)


class _Wrapper:
    """An embedder around another: same source, model and dimension (the signature)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def source(self) -> str:
        return self.inner.source

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dim(self) -> int:
        return self.inner.dim


class RetryingEmbedder(_Wrapper):
    """Transient failures (rate limit, timeout, dropped request) are retried once;
    anything else (no key, model not loadable) is raised at once."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        try:
            return self.inner.embed(texts)
        except TransientEmbeddingError:
            log.info("transient embedding failure; retrying once")
            return self.inner.embed(texts)


class CachedEmbedder(_Wrapper):
    """Vectors by ``source:model:dim:sha256(text)``, at most ``max_entries`` for ``ttl_s``."""

    def __init__(
        self,
        inner: Embedder,
        max_entries: int = 1000,
        ttl_s: float = 300.0,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(inner)
        self._cache: TTLCache[str, Vectors] | None = (
            TTLCache(maxsize=max_entries, ttl=ttl_s, timer=timer)
            if max_entries > 0 and ttl_s > 0
            else None
        )
        self._lock = threading.Lock()
        # "source:model:dim:", known after the first call: a remote embedder learns its
        # dimension from its first answer, and asking earlier would cost a probe request.
        self._prefix: str | None = None
        self.hits = 0
        self.misses = 0

    def key(self, text: str) -> str:
        if self._prefix is None:
            self._prefix = f"{self.source}:{self.model}:{self.dim}:"
        return self._prefix + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def forget(self, texts: Sequence[str]) -> int:
        """Drop the vectors of ``texts`` (a forgotten memory leaves no trace here)."""
        if self._cache is None or self._prefix is None:
            return 0
        dropped = 0
        with self._lock:
            for text in texts:
                dropped += self._cache.pop(self.key(text), None) is not None
        return dropped

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self._cache is None or not texts:
            return self.inner.embed(texts)
        if self._prefix is None:
            vectors = self.inner.embed(texts)
            with self._lock:
                for text, vector in zip(texts, vectors, strict=True):
                    self._cache[self.key(text)] = vector
            self.misses += len(texts)
            return vectors
        keys = [self.key(t) for t in texts]
        found: dict[int, Vectors] = {}
        with self._lock:
            for i, k in enumerate(keys):
                vector = self._cache.get(k)
                if vector is not None:
                    found[i] = vector
        missing = [i for i in range(len(texts)) if i not in found]
        self.hits += len(found)
        self.misses += len(missing)
        if missing:
            fresh = self.inner.embed([texts[i] for i in missing])
            with self._lock:
                for row, i in enumerate(missing):
                    found[i] = fresh[row]
                    self._cache[keys[i]] = fresh[row]
        return np.stack([found[i] for i in range(len(texts))]).astype(np.float32, copy=False)
