"""The engine facade: one object wiring storage, settings, retrieval, vectors and keys."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from .apikeys import ApiKeyService
from .chat import ChatMemory
from .config import Config
from .embeddings import local_status, resolve_embedder
from .embeddings.resolve import remote_endpoint, remote_model
from .errors import EngramError, UnavailableError
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
    QdrantStatus,
    ReindexResult,
    RetrievalRequest,
    RetrievalResult,
    VectorStoreStatus,
)
from .models.common import from_millis, to_millis
from .ports import JobQueue, VectorTier
from .qdrant import QdrantHit, QdrantService, QdrantSettingsStore, QdrantTier, payload_of
from .rerank import RemoteReranker, reranker_for
from .retrieval import Retriever, TierProvider
from .settings import MemorySettings, MemorySettingsUpdate, SettingsStore
from .storage import ApiKeyRepository, Database, MemoryRepository, SearchRepository
from .storage.maintenance import MaintenanceRepository
from .storage.migrate import schema_version
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
        self.qdrant = QdrantService(QdrantSettingsStore(db), config.data_dir, config.qdrant_url)
        self.memories.on_delete.append(self.qdrant.forget)
        self.maintenance.secondary_cleanup = self._qdrant_cleanup

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

    def vector_tier(self) -> tuple[list[VectorTier], str | None]:
        """The tiers retrieval tries in order: Qdrant first when it is the vector store,
        then libSQL's vectors; none (and why) when there is no embedder."""
        libsql, reason = self._libsql_tier()
        if libsql is None:
            return [], reason
        tiers: list[VectorTier] = [libsql]
        if self.settings.get().vector_store == "qdrant":
            store = self.qdrant.store()
            if store is not None:
                embedder = libsql.maintenance.embedder
                tiers.insert(0, QdrantTier(store, embedder, lambda: self.config.vec_top_k))
        return tiers, None

    def _mirror(self, seqs: list[int], vectors: Any) -> None:
        """Write freshly stored vectors into Qdrant too, when it is enabled."""
        if self.qdrant.store() is None:
            return
        order = {seq: i for i, seq in enumerate(seqs)}
        rows = sorted(self.search.by_seq(seqs), key=lambda row: order[row[0]])
        self.qdrant.mirror([memory for _, memory, _ in rows], vectors)

    def _qdrant_cleanup(self, now_ms: int, cutoff_ms: int, dry_run: bool) -> int | None:
        store = self.qdrant.store()
        if store is None:
            return None
        try:
            return store.cleanup(now_ms / 1000, cutoff_ms / 1000, dry_run)
        except EngramError:
            log.warning("qdrant cleanup failed; next run will retry", exc_info=True)
            return None

    def backfill_qdrant(self, max_seconds: float, batch: int = 256) -> ReindexResult:
        """Write every memory that has a vector into Qdrant (idempotent upserts)."""
        from .vectors.encoding import decode

        store = self.qdrant.store()
        tier, reason = self._libsql_tier()
        if store is None or tier is None:
            why = "qdrant is not enabled" if store is None else reason
            return ReindexResult(started=False, pending=0, reason=why)
        dim = tier.maintenance.embedder.dim
        deadline = time.monotonic() + max_seconds
        cursor = processed = 0
        while time.monotonic() < deadline:
            seqs = self.search.embedded_after(cursor, batch)
            if not seqs:
                break
            rows = self.search.by_seq(seqs)
            points = [
                (m.id, vector.tolist(), payload_of(m))
                for _, m, blob in rows
                if (vector := decode(blob, dim)) is not None
            ]
            store.upsert(points)
            processed += len(points)
            cursor = seqs[-1]
        total = self.search.embedded_count()
        return ReindexResult(
            started=True, pending=max(total - store.count(), 0), processed=processed
        )

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

    def reindex(
        self, force: bool = False, max_seconds: float = 2.0, target: str = "libsql"
    ) -> ReindexResult:
        """Embed pending memories for up to ``max_seconds``; ``force`` re-embeds all;
        ``target="qdrant"`` copies the stored vectors into the Qdrant collection."""
        if target == "qdrant":
            return self.backfill_qdrant(max_seconds)
        tier, reason = self._libsql_tier()
        if tier is None:
            return ReindexResult(started=False, pending=self.search.pending_count(), reason=reason)
        maintenance = tier.maintenance
        maintenance.ensure_signature()
        if force:
            self.search.mark_all_pending()
        processed = maintenance.reindex(max_seconds, on_stored=self._mirror)
        return ReindexResult(started=True, pending=self.search.pending_count(), processed=processed)

    def process_embedding(self, job: EmbeddingJob) -> int:
        """Embed the job's memories if they still need it (idempotent by construction)."""
        tier, reason = self._libsql_tier()
        if tier is None:
            log.info("embedding job %s skipped: %s", job.request_id, reason)
            return 0
        tier.maintenance.ensure_signature()
        return tier.maintenance.embed_pending(
            job.api_key_id, limit=len(job.memory_ids) + 64, on_stored=self._mirror
        )

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
        remote_ready = remote_endpoint(s, self.config) is not None and bool(remote_model(s))
        static_problem = local_status(self.config, "potion-base-8M")
        onnx_problem = local_status(self.config, "all-MiniLM-L6-v2")
        return [
            EmbeddingProvider(
                source="remote",
                model=remote_model(s),
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
            qdrant=self.qdrant_status(),
            rerank_enabled=settings.rerank_enabled,
            schema_version=schema_version(self.db),
            remote_database=self.db.is_remote,
        )

    def qdrant_search(self, query: str, top_k: int, owner: str | None) -> list[QdrantHit]:
        """A test search in the collection: the query embedded as retrieval would."""
        store = self.qdrant.store()
        if store is None:
            raise UnavailableError("qdrant is not enabled")
        tier, reason = self._libsql_tier()
        if tier is None:
            raise UnavailableError(f"no embedder: {reason}")
        vector = tier.maintenance.embedder.embed([query])[0]
        owners = [owner] if owner else self.search.owners()
        return store.search(vector.tolist(), owners, None, top_k, self.now_ms() / 1000, 0)

    def qdrant_cleanup(self, dry_run: bool) -> int:
        if self.qdrant.store() is None:
            raise UnavailableError("qdrant is not enabled")
        now = self.now_ms()
        cutoff = now - self.settings.get().retention_days * 86_400_000
        removed = self._qdrant_cleanup(now, cutoff, dry_run)
        if removed is None:
            raise UnavailableError("qdrant cleanup failed")
        return removed

    def qdrant_status(self) -> QdrantStatus:
        current = self.qdrant.current()
        status = QdrantStatus(
            enabled=current.enabled,
            primary=self.settings.get().vector_store == "qdrant",
            mode="server" if current.host else "embedded",
        )
        store = self.qdrant.store()
        if store is None:
            return status
        health = store.health()
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
        self.qdrant.close()
        self.db.close()
