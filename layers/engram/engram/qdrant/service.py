"""The Qdrant tier as the engine uses it: settings, the store, mirroring and search."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from ..embeddings.cache import CachedEmbedder
from ..errors import UnavailableError
from ..models import Memory
from ..ports import DenseScores
from ..storage.rows import OwnerFilter
from .settings import QdrantSettings, QdrantSettingsStore, QdrantSettingsUpdate
from .store import QdrantStore

__all__ = ["QdrantService", "QdrantTier", "payload_of"]

log = logging.getLogger(__name__)


def payload_of(memory: Memory) -> dict[str, Any]:
    return {
        "memoryId": memory.id,
        "apiKeyId": memory.api_key_id,
        "sessionId": memory.session_id,
        "key": memory.key,
        "content": memory.content,
        "metadata": memory.metadata,
        "createdAtUnix": memory.created_at.timestamp(),
        "updatedAtUnix": memory.updated_at.timestamp(),
        "expiresAtUnix": None if memory.expires_at is None else memory.expires_at.timestamp(),
    }


class QdrantService:
    """Owns the store for the current settings (rebuilt when they change)."""

    def __init__(
        self, settings: QdrantSettingsStore, data_dir: Path, default_url: str | None = None
    ) -> None:
        self.settings = settings
        self.data_dir = data_dir
        self.default_url = default_url
        self._lock = threading.Lock()
        self._store: QdrantStore | None = None
        self._key: str | None = None

    def current(self) -> QdrantSettings:
        """Stored settings; a deployment's ``ENGRAM_QDRANT_URL`` fills in a missing host."""
        settings = self.settings.get()
        if settings.host or not self.default_url:
            return settings
        url = urlsplit(self.default_url)
        https = url.scheme == "https"
        return settings.model_copy(
            update={
                "host": url.hostname or "",
                "port": url.port or (443 if https else 6333),
                "https": https,
            }
        )

    def store(self) -> QdrantStore | None:
        """The store when Qdrant is enabled, else None."""
        settings = self.current()
        if not settings.enabled:
            return None
        # model_dump_json() masks the key ("**********"), so it is added in clear here,
        # or a new key alone would keep the client built with the old one.
        secret = settings.api_key.get_secret_value() if settings.api_key else ""
        key = settings.model_dump_json() + secret
        with self._lock:
            if key != self._key:
                if self._store is not None:
                    self._store.close()
                self._store = QdrantStore(settings, self.data_dir)
                self._key = key
            return self._store

    def update(self, changes: QdrantSettingsUpdate, now_ms: int) -> QdrantSettings:
        updated = self.settings.update(changes, now_ms)
        self.store()  # reconnect with the new settings now, not on the next request
        return updated

    def mirror(self, memories: Sequence[Memory], vectors: np.ndarray) -> None:
        """Write points for memories just embedded; failures are logged (fail-soft)."""
        store = self.store()
        if store is None or not memories:
            return
        try:
            store.upsert(
                [(m.id, v.tolist(), payload_of(m)) for m, v in zip(memories, vectors, strict=True)]
            )
        except UnavailableError:
            log.warning("qdrant mirror write failed; libSQL keeps the vectors", exc_info=True)

    def forget(self, memory_id: str) -> None:
        store = self.store()
        if store is None:
            return
        try:
            store.delete([memory_id])
        except UnavailableError:
            log.warning("qdrant point delete failed; cleanup will catch it", exc_info=True)

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None


class QdrantTier:
    """Vector search in Qdrant: the top ``k`` only (clamped to 20), hence ``complete=False``."""

    store_name = "qdrant"

    def __init__(
        self, store: QdrantStore, embedder: CachedEmbedder, top_k: Callable[[], int]
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._top_k = top_k

    @property
    def store(self) -> str:
        return self.store_name

    @property
    def embedding_source(self) -> str:
        return self._embedder.source

    def dense(self, query: str, who: OwnerFilter, now_ms: int, cutoff_ms: int) -> DenseScores:
        vector = self._embedder.embed([query])[0]
        hits = self._store.search(
            vector.tolist(),
            who.owners,
            who.session_id,
            self._top_k(),
            now_ms / 1000,
            cutoff_ms / 1000,
        )
        if not hits:
            raise UnavailableError("qdrant returned nothing")
        ids = [h.memory_id for h in hits]
        speakers = np.array(
            [str((h.payload.get("metadata") or {}).get("speaker") or "") for h in hits],
            dtype=object,
        )
        masks = {name: speakers == name for name in set(speakers.tolist()) if name}
        return DenseScores(
            ids,
            np.array([h.score for h in hits], dtype=np.float32),
            {memory_id: i for i, memory_id in enumerate(ids)},
            masks,
            complete=False,
        )
