"""The engine facade: one object wiring storage, settings, retrieval and keys."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from .apikeys import ApiKeyService
from .chat import ChatMemory
from .config import Config
from .errors import EngramError
from .injection import inject
from .memory_service import MemoryService
from .models import (
    EmbeddingJob,
    EmbeddingProvider,
    EngineStatus,
    ExtractionJob,
    ExtractionOutcome,
    KeywordTierStatus,
    Memory,
    RetrievalRequest,
    RetrievalResult,
    VectorStoreStatus,
)
from .models.common import from_millis, to_millis
from .ports import JobQueue, VectorTier
from .retrieval import Retriever
from .settings import MemorySettings, MemorySettingsUpdate, SettingsStore
from .storage import ApiKeyRepository, Database, MemoryRepository

__all__ = ["Engine", "utc_now"]

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


class Engine:
    """Everything Engram does, behind one object; built by :func:`engram.build_engine`."""

    def __init__(
        self,
        db: Database,
        config: Config,
        *,
        clock: Callable[[], datetime] = utc_now,
        vector_tier: Callable[[], VectorTier | None] = lambda: None,
    ) -> None:
        self.db = db
        self.config = config
        self.clock = clock
        self.vector_tier = vector_tier
        self.repo = repo = MemoryRepository(db)
        self.settings = SettingsStore(db, ttl_s=config.settings_cache_ttl_s)
        self.memories = MemoryService(repo, clock)
        self.keys = ApiKeyService(ApiKeyRepository(db), clock)
        self.retriever = Retriever(
            repo,
            self.settings,
            lambda: to_millis(self.clock()),
            rrf_k=config.rrf_k,
            vec_top_k=config.vec_top_k,
            vector_tier=vector_tier,
        )
        self.chat = ChatMemory(self.retriever, self.settings)

    def process_extraction(
        self, job: ExtractionJob, embedding_queue: JobQueue | None = None
    ) -> ExtractionOutcome:
        """Store the facts of one chat exchange (once), then ask for their vectors.

        A failed embedding request is logged, not raised: the extraction is committed,
        and memories without a vector are still marked ``needs_reindex``.
        """
        outcome = self.memories.process_extraction(job)
        ids = outcome.created + outcome.changed
        if ids and embedding_queue is not None:
            embed = EmbeddingJob(
                api_key_id=job.api_key_id, memory_ids=ids, request_id=f"{job.request_id}.embed"
            )
            try:
                embedding_queue.send(embed)
            except EngramError:
                log.warning("could not queue embeddings for job %s", job.request_id, exc_info=True)
        return outcome

    def update_settings(self, changes: MemorySettingsUpdate) -> MemorySettings:
        return self.settings.update(changes, to_millis(self.clock()))

    def retrieve(
        self, api_key_id: str, request: RetrievalRequest, *, record: bool = True
    ) -> RetrievalResult:
        return self.retriever.retrieve(api_key_id, request, record=record)

    @staticmethod
    def inject(
        request: Mapping[str, Any],
        memories: Sequence[Memory],
        provider: str | None,
        *,
        cache_safe: bool = False,
    ) -> dict[str, Any]:
        return inject(request, memories, provider, cache_safe=cache_safe)

    def keyword_tier_available(self) -> bool:
        return self.db.table_exists("memory_fts")

    def embedding_providers(self) -> list[EmbeddingProvider]:
        """Every embedding source and whether this build can use it now."""
        settings = self.settings.get()
        missing = "no embedder for this source is included in this build yet"
        return [
            EmbeddingProvider(
                source="remote",
                model=settings.custom_model_id or settings.embedding_provider_model,
                dimension=None,
                available=False,
                reason=missing,
            ),
            EmbeddingProvider(
                source="static",
                model=self.config.static_model,
                dimension=256,
                available=False,
                reason=missing,
            ),
            EmbeddingProvider(
                source="transformers",
                model=self.config.transformers_model,
                dimension=384,
                available=False,
                reason=missing,
            ),
        ]

    def status(self) -> EngineStatus:
        settings = self.settings.get()
        tier = self.vector_tier()
        meta = self.db.query_one(
            "SELECT active_dim, embedding_signature, last_reset_at FROM vector_meta WHERE id = 1"
        )
        total, pending = self.repo.vector_counts()
        last_reset = meta["last_reset_at"] if meta else None
        return EngineStatus(
            keyword_tier=KeywordTierStatus(available=self.keyword_tier_available()),
            embedding_source=None if tier is None else tier.embedding_source,
            embedding_providers=self.embedding_providers(),
            vector_store=VectorStoreStatus(
                requested=settings.vector_store,
                active=None if tier is None else tier.store,
                dimension=meta["active_dim"] if meta else None,
                signature=meta["embedding_signature"] if meta else None,
                last_reset_at=None if last_reset is None else from_millis(last_reset),
                pending_reindex=pending,
                total_memories=total,
            ),
            rerank_enabled=settings.rerank_enabled,
            schema_version=int(self.db.scalar("SELECT max(version) FROM schema_migrations") or 0),
            remote_database=self.db.is_remote,
        )

    def close(self) -> None:
        self.db.close()
