"""The engine facade: one object wiring storage, settings, retrieval, vectors and keys."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from .apikeys import ApiKeyService
from .chat import ChatMemory
from .config import Config
from .embeddings import local_status, resolve_embedder
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
    ReindexResult,
    RetrievalRequest,
    RetrievalResult,
    VectorStoreStatus,
)
from .models.common import from_millis, to_millis
from .ports import JobQueue, VectorTier
from .rerank import RemoteReranker, reranker_for
from .retrieval import Retriever, TierProvider
from .settings import MemorySettings, MemorySettingsUpdate, SettingsStore
from .storage import ApiKeyRepository, Database, MemoryRepository, SearchRepository
from .storage.maintenance import MaintenanceRepository
from .summarization import Maintenance
from .vectors import IndexCache, LibsqlVectorTier, VectorMaintenance

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
        vector_tier: TierProvider | None = None,
    ) -> None:
        self.db = db
        self.config = config
        self.clock = clock
        self.repo = MemoryRepository(db)
        self.search = SearchRepository(db)
        self.settings = SettingsStore(db, ttl_s=config.settings_cache_ttl_s)
        self.memories = MemoryService(self.repo, clock)
        self.keys = ApiKeyService(ApiKeyRepository(db), clock)
        self.index_cache = IndexCache(config.vector_cache_mb * 1024 * 1024)
        self._tier_lock = threading.Lock()
        self._tier_key: tuple[Any, ...] | None = None
        self._tier: tuple[LibsqlVectorTier | None, str | None] = (None, None)
        self._rerank_key: tuple[Any, ...] | None = None
        self._reranker: RemoteReranker | None = None
        self.retriever = Retriever(
            self.search,
            self.repo,
            self.settings,
            self.now_ms,
            rrf_k=config.rrf_k,
            vec_top_k=config.vec_top_k,
            vector_tier=vector_tier or self.vector_tier,
            reranker=self.reranker,
        )
        self.chat = ChatMemory(self.retriever, self.settings)
        self.maintenance = Maintenance(
            MaintenanceRepository(db), self.memories, self.settings, self.now_ms
        )

    def now_ms(self) -> int:
        return to_millis(self.clock())

    # -- vectors ------------------------------------------------------------------

    def reranker(self) -> RemoteReranker | None:
        """The remote reranker the settings ask for (built again when they change)."""
        s = self.settings.get()
        key = (s.rerank_enabled, s.rerank_provider_model, s.custom_base_url)
        if key != self._rerank_key:
            self._rerank_key = key
            self._reranker = reranker_for(s, self.config)
        return self._reranker

    def vector_tier(self) -> tuple[VectorTier | None, str | None]:
        return self._libsql_tier()

    def _libsql_tier(self) -> tuple[LibsqlVectorTier | None, str | None]:
        """The tier for the current settings; re-resolved only when they change."""
        s = self.settings.get()
        key = (
            s.embedding_source,
            s.static_enabled,
            s.transformers_enabled,
            s.custom_base_url,
            s.custom_model_id,
            s.embedding_provider_model,
        )
        with self._tier_lock:
            if key != self._tier_key:
                resolution = resolve_embedder(s, self.config)
                tier = None
                if resolution.embedder is not None:
                    maintenance = VectorMaintenance(
                        self.search,
                        resolution.embedder,
                        self.config.vec_quantization == "int8",
                        self.now_ms,
                    )
                    lazy = 32 if resolution.embedder.source == "remote" else 512
                    tier = LibsqlVectorTier(maintenance, self.index_cache, lazy_batch=lazy)
                self._tier, self._tier_key = (tier, resolution.reason), key
            return self._tier

    def reindex(self, force: bool = False, max_seconds: float = 2.0) -> ReindexResult:
        """Embed pending memories for up to ``max_seconds``; ``force`` re-embeds all."""
        tier, reason = self._libsql_tier()
        if tier is None:
            return ReindexResult(started=False, pending=self.search.pending_count(), reason=reason)
        maintenance = tier.maintenance
        maintenance.ensure_signature()
        if force:
            self.search.mark_all_pending()
        processed = maintenance.reindex(max_seconds)
        return ReindexResult(started=True, pending=self.search.pending_count(), processed=processed)

    def process_embedding(self, job: EmbeddingJob) -> int:
        """Embed the job's memories if they still need it (idempotent by construction)."""
        tier, reason = self._libsql_tier()
        if tier is None:
            log.info("embedding job %s skipped: %s", job.request_id, reason)
            return 0
        tier.maintenance.ensure_signature()
        return tier.maintenance.embed_pending(job.api_key_id, limit=len(job.memory_ids) + 64)

    # -- memories and chat ------------------------------------------------------------

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
        return self.settings.update(changes, self.now_ms())

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

    # -- status -------------------------------------------------------------------

    def keyword_tier_available(self) -> bool:
        return self.db.table_exists("memory_fts")

    def embedding_providers(self) -> list[EmbeddingProvider]:
        """Every embedding source and whether it can be used now."""
        s = self.settings.get()
        remote_ready = bool(
            (s.custom_base_url or self.config.upstream_base_url)
            and (s.custom_model_id or s.embedding_provider_model)
            and (self.config.embedding_api_key or self.config.upstream_api_key)
        )
        static_problem = local_status(self.config, "potion-base-8M")
        onnx_problem = local_status(self.config, "all-MiniLM-L6-v2")
        return [
            EmbeddingProvider(
                source="remote",
                model=s.custom_model_id or s.embedding_provider_model,
                dimension=None,
                available=remote_ready,
                reason=None
                if remote_ready
                else "needs customBaseUrl (or the upstream URL), customModelId and an API key",
            ),
            EmbeddingProvider(
                source="static",
                model=self.config.static_model,
                dimension=256,
                available=static_problem is None,
                reason=static_problem,
            ),
            EmbeddingProvider(
                source="transformers",
                model=self.config.transformers_model,
                dimension=384,
                available=onnx_problem is None,
                reason=onnx_problem,
            ),
        ]

    def status(self) -> EngineStatus:
        settings = self.settings.get()
        tier, _ = self._libsql_tier()
        meta = self.search.vector_meta()
        total, pending = self.repo.vector_counts()
        return EngineStatus(
            keyword_tier=KeywordTierStatus(available=self.keyword_tier_available()),
            embedding_source=None if tier is None else tier.embedding_source,
            embedding_providers=self.embedding_providers(),
            vector_store=VectorStoreStatus(
                requested=settings.vector_store,
                active=None if tier is None else tier.store,
                dimension=meta.dim,
                signature=meta.signature,
                last_reset_at=None
                if meta.last_reset_at is None
                else from_millis(meta.last_reset_at),
                pending_reindex=pending,
                total_memories=total,
            ),
            rerank_enabled=settings.rerank_enabled,
            schema_version=int(self.db.scalar("SELECT max(version) FROM schema_migrations") or 0),
            remote_database=self.db.is_remote,
        )

    def close(self) -> None:
        self.db.close()
