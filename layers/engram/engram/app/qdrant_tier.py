"""The optional Qdrant tier as the engine uses it: settings, the store, mirroring,
search, cleanup and status. The store itself is an adapter (a ``PointStore``)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from engram.app.embedding import ActiveEmbedder
from engram.app.health import FailureLog
from engram.app.settings import QdrantSettingsStore, SettingsStore
from engram.domain.errors import (
    ConflictError,
    DimensionMismatch,
    EngramError,
    InvalidInputError,
    UnavailableError,
)
from engram.domain.models import (
    DAY_MS,
    MAX_TOP_K,
    Memory,
    MemorySettingsUpdate,
    OwnerFilter,
    QdrantHealth,
    QdrantHit,
    QdrantSettings,
    QdrantSettingsUpdate,
    QdrantStatus,
    Removed,
)
from engram.domain.terms import SPEAKER_PREFIX_CHARS, prefix_speaker
from engram.ports import (
    DenseScores,
    PointStore,
    PointStoreFactory,
    UnitOfWork,
    VectorRows,
    Vectors,
)

__all__ = ["QdrantService", "QdrantTier", "payload_of"]

log = logging.getLogger(__name__)
# Seconds retrieval leaves Qdrant out after a failed search (or health probe).
SKIP_AFTER_FAILURE_S = 30.0
# Why a deployment that forbids it (AWS Lambda) does not run Qdrant's embedded mode.
EMBEDDED_REFUSED = (
    "embedded qdrant (no host) is not available here: each AWS Lambda instance would keep"
    " its own collection in its /tmp; set host to a Qdrant server (or deploy with a Qdrant URL)"
)


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


class QdrantTier:
    """Vector search in Qdrant: the top ``k`` only (clamped to 20), hence ``complete=False``."""

    store = "qdrant"

    def __init__(
        self, points: PointStore, top_k: int, on_failure: Callable[[], None] = lambda: None
    ) -> None:
        self._points = points
        self._top_k = top_k
        self._on_failure = on_failure

    def dense(self, query: Vectors, who: OwnerFilter, now_ms: int, cutoff_ms: int) -> DenseScores:
        try:
            hits = self._points.search(
                query.tolist(),
                who.owners,
                who.session_id,
                self._top_k,
                now_ms / 1000,
                cutoff_ms / 1000,
            )
        except UnavailableError:
            self._on_failure()
            raise
        if not hits:
            raise UnavailableError("qdrant returned nothing")
        ids = [h.memory_id for h in hits]
        speakers = np.array(
            [
                str(
                    (h.payload.get("metadata") or {}).get("speaker")
                    or prefix_speaker(str(h.payload.get("content") or "")[:SPEAKER_PREFIX_CHARS])
                    or ""
                )
                for h in hits
            ],
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


class QdrantService:
    """Owns the store for the current settings (rebuilt when they change)."""

    def __init__(
        self,
        settings: QdrantSettingsStore,
        memory_settings: SettingsStore,
        factory: PointStoreFactory,
        embeddings: ActiveEmbedder,
        rows: VectorRows,
        uow: UnitOfWork,
        now_ms: Callable[[], int],
        *,
        default_url: str | None = None,
        top_k: int = MAX_TOP_K,
        allow_embedded: bool = True,
        failures: FailureLog | None = None,
    ) -> None:
        self.settings = settings
        self.memory_settings = memory_settings
        self.factory = factory
        self.embeddings = embeddings
        self.rows = rows
        self.uow = uow
        self.now_ms = now_ms
        self.default_url = default_url
        self.top_k = top_k
        # False in AWS Lambda: an embedded collection would live in each instance's /tmp.
        self.allow_embedded = allow_embedded
        self.failures = failures or FailureLog(now_ms)
        self._lock = threading.Lock()
        self._store: PointStore | None = None
        self._key: str | None = None
        # After a failed search, Qdrant is left out for a while: a dead server would
        # otherwise cost every retrieval its timeout before the libSQL vectors answer.
        self._skip_until = 0.0

    def current(self) -> QdrantSettings:
        """Stored settings; a deployment's ``ENGRAM_QDRANT_URL`` fills in a missing host."""
        return self._with_default_host(self.settings.get())

    def _with_default_host(self, settings: QdrantSettings) -> QdrantSettings:
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

    def refused(self, settings: QdrantSettings | None = None) -> str | None:
        """Why these settings (the current ones by default) cannot run here, or None."""
        settings = self.current() if settings is None else settings
        if settings.enabled and not settings.host and not self.allow_embedded:
            return EMBEDDED_REFUSED
        return None

    def store(self) -> PointStore | None:
        """The store when Qdrant is enabled (and can run here), else None."""
        settings = self.current()
        if not settings.enabled or self.refused(settings) is not None:
            return None
        # model_dump_json() masks the key ("**********"), so it is added in clear here,
        # or a new key alone would keep the client built with the old one.
        secret = settings.api_key.get_secret_value() if settings.api_key else ""
        key = settings.model_dump_json() + secret
        with self._lock:
            if key != self._key:
                if self._store is not None:
                    self._store.close()
                self._store = self.factory(settings)
                self._key = key
            return self._store

    def primary(self) -> bool:
        return self.memory_settings.get().vector_store == "qdrant"

    def update(self, changes: QdrantSettingsUpdate) -> QdrantSettings:
        """Enabling makes Qdrant the primary vector store and disabling resets it to
        ``auto``, in the same transaction as the settings themselves. Settings this
        deployment cannot run (embedded mode in AWS Lambda) are refused, nothing saved."""
        with self.uow.transaction():
            updated = self.settings.update(changes)
            reason = self.refused(self._with_default_host(updated))
            if reason is not None:
                raise InvalidInputError(reason, field="host")
            if "enabled" in changes.model_fields_set:
                store = "qdrant" if updated.enabled else "auto"
                self.memory_settings.update(MemorySettingsUpdate(vector_store=store))
        self.memory_settings.invalidate()  # committed only now: a read meanwhile saw the old
        self.store()  # reconnect with the new settings now, not on the next request
        return updated

    def tier(self) -> QdrantTier | None:
        """The tier retrieval asks first, when Qdrant is the vector store (and not resting
        after a failure: see ``skipped``)."""
        if not self.primary() or self.skipped() is not None:
            return None
        store = self.store()
        return None if store is None else QdrantTier(store, self.top_k, self._failed)

    def skipped(self) -> str | None:
        """Why retrieval leaves Qdrant out now, or None."""
        left = self._skip_until - time.monotonic()
        return f"qdrant skipped for {left:.0f} s after a failure" if left > 0 else None

    def _failed(self) -> None:
        self._skip_until = time.monotonic() + SKIP_AFTER_FAILURE_S

    # -- points ----------------------------------------------------------------------------

    def write(self, memories: Sequence[Memory], vectors: Vectors) -> None:
        store = self.store()
        if store is None or not memories:
            return
        store.upsert(
            [(m.id, v.tolist(), payload_of(m)) for m, v in zip(memories, vectors, strict=True)]
        )

    def mirror(self, memories: Sequence[Memory], vectors: Vectors) -> None:
        """Write points for memories just embedded; failures are logged and reported in
        engine-status (fail-soft: ``reindex`` with ``target: qdrant`` writes them later)."""
        try:
            self.write(memories, vectors)
        except UnavailableError as exc:
            log.warning("qdrant mirror write failed; libSQL keeps the vectors: %s", exc.message)
            self.failures.failed("qdrant mirror", exc.message)
        else:
            if memories:
                self.failures.recovered("qdrant mirror")

    def mirror_stored(
        self, owner: str, memory_ids: Sequence[str], dim: int, skip: Collection[int] = ()
    ) -> int:
        """Write the points of an embedding job's memories from their stored vectors, but
        those whose rows (seqs) are in ``skip`` (just mirrored). A memory embedded by
        another path before its job ran (retrieval's lazy pass, a reindex) still gets its
        point from the worker. Fail-soft, as ``mirror``; returns how many were sent."""
        if self.store() is None or not memory_ids:
            return 0
        found = [
            (memory, vector)
            for seq, memory, vector in self.rows.embedded(owner, memory_ids, dim)
            if vector is not None and seq not in skip
        ]
        if found:
            self.mirror([m for m, _ in found], np.stack([v for _, v in found]))
        return len(found)

    def forget(self, removed: Removed) -> None:
        """Delete the points of memories that left libSQL (deleted, forgotten, retired)."""
        store = self.store()
        if store is None or not removed:
            return
        try:
            for start in range(0, len(removed.ids), 500):
                store.delete(list(removed.ids[start : start + 500]))
        except UnavailableError:
            log.warning("qdrant point delete failed; cleanup will catch it", exc_info=True)

    def search(self, query: str, top_k: int, owner: str | None) -> list[QdrantHit]:
        """A test search in the collection: the query embedded as retrieval would, among
        one key's points (or every key's)."""
        store = self._required()
        vector = self.embeddings.embed_query(query)
        owners = [owner] if owner else self.rows.owners()
        try:
            return store.search(vector.tolist(), owners, None, top_k, self.now_ms() / 1000, 0)
        except DimensionMismatch as exc:  # the settings disagree with the collection
            raise ConflictError(exc.message) from exc

    def _required(self) -> PointStore:
        store = self.store()
        if store is None:
            reason = self.refused() or "qdrant is not enabled: PUT /api/settings/qdrant first"
            raise ConflictError(reason)
        return store

    def cleanup_points(self, now_ms: int, cutoff_ms: int, dry_run: bool) -> int | None:
        """Points expired or past retention; None when Qdrant is off or failed (logged)."""
        store = self.store()
        if store is None:
            return None
        try:
            return store.cleanup(now_ms / 1000, cutoff_ms / 1000, dry_run)
        except EngramError:
            log.warning("qdrant cleanup failed; next run will retry", exc_info=True)
            return None

    def cleanup(self, dry_run: bool) -> int:
        """The cleanup operation: points expired or past the memory retention."""
        self._required()
        now = self.now_ms()
        cutoff = now - self.memory_settings.get().retention_days * DAY_MS
        removed = self.cleanup_points(now, cutoff, dry_run)
        if removed is None:
            raise UnavailableError("qdrant cleanup failed")
        return removed

    def health(self) -> QdrantHealth:
        """A probe bounded by ``timeoutMs``. A failed one rests Qdrant as a failed search
        does, so engine-status and retrieval agree on the tier that answers."""
        reason = self.refused()
        if reason is not None:
            return QdrantHealth(ok=False, latency_ms=0.0, error=reason)
        store = self.store()
        if store is None:
            return QdrantHealth(ok=False, latency_ms=0.0, error="qdrant is not enabled")
        health = store.health()
        if not health.ok:
            self._failed()
        return health

    def status(self) -> QdrantStatus:
        current = self.current()
        status = QdrantStatus(
            enabled=current.enabled,
            primary=self.primary(),
            mode="server" if current.host else "embedded",
        )
        reason = self.refused(current)
        if reason is not None:
            return status.model_copy(update={"healthy": False, "error": reason})
        if self.store() is None:
            return status
        health = self.health()
        return status.model_copy(
            update={
                "healthy": health.ok,
                "latency_ms": health.latency_ms,
                "points": health.points,
                "dimension": health.dimension,
                "error": health.error,
            }
        )

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
