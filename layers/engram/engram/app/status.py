"""What the engine can do right now: keyword tier, embedders, vector store, Qdrant."""

from __future__ import annotations

from collections.abc import Callable

from engram.app.embedding import ActiveEmbedder
from engram.app.health import FailureLog
from engram.app.qdrant_tier import QdrantService
from engram.app.settings import SettingsStore
from engram.app.vectors import VectorService
from engram.domain.models import (
    EmbeddingProvider,
    EngineStatus,
    ExtractorStatus,
    KeywordTierStatus,
    VectorStoreStatus,
)
from engram.domain.models.backends import BackendsStatus
from engram.domain.models.common import from_millis
from engram.ports import SearchIndex, StorageInfo, VectorRows

__all__ = ["StatusService"]


class StatusService:
    def __init__(
        self,
        settings: SettingsStore,
        embeddings: ActiveEmbedder,
        rows: VectorRows,
        search: SearchIndex,
        qdrant: QdrantService,
        vectors: VectorService,
        storage: StorageInfo,
        failures: FailureLog,
        backends: Callable[[], BackendsStatus] | None = None,
        extractor: Callable[[], ExtractorStatus] | None = None,
    ) -> None:
        self.extractor = extractor
        self.failures = failures
        self.backends = backends
        self.settings = settings
        self.embeddings = embeddings
        self.rows = rows
        self.search = search
        self.qdrant = qdrant
        self.vectors = vectors
        self.storage = storage

    def embedding_providers(self) -> list[EmbeddingProvider]:
        """Every embedding source and whether it can be used now."""
        return self.embeddings.providers()

    def report(self) -> EngineStatus:
        settings = self.settings.get()
        choice = self.embeddings.current()
        embedder = choice.embedder
        meta = self.rows.meta()
        total, pending = self.rows.counts()
        # Qdrant's probe first: a failed one rests it, and the active store says so.
        qdrant = self.qdrant.status()
        return EngineStatus(
            keyword_tier=KeywordTierStatus(available=self.search.available()),
            embedding_source=None if embedder is None else embedder.source,
            embedding_configured=choice.source,
            embedding_unavailable=choice.reason if choice.unavailable else None,
            embedding_providers=self.embedding_providers(),
            vector_store=VectorStoreStatus(
                requested=settings.vector_store,
                active=self.vectors.active_store(),
                dimension=meta.dim,
                signature=meta.signature,
                last_reset_at=None
                if meta.last_reset_at is None
                else from_millis(meta.last_reset_at),
                pending_reindex=pending,
                total_memories=total,
            ),
            qdrant=qdrant,
            rerank_enabled=settings.rerank_enabled,
            schema_version=self.storage.schema_version(),
            remote_database=self.storage.is_remote,
            backends=None if self.backends is None else self.backends(),
            extractor=None if self.extractor is None else self.extractor(),
            failures=self.failures.current(),
            degraded_retrievals=self.failures.degraded_retrievals,
        )
