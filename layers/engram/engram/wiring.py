"""The composition root: the one place that builds adapters and plugs them into the
engine's use cases.

``open_engine`` makes a new engine (tests, CLI); ``build_engine`` caches one per
database URL for the life of the process, which is what a Lambda container or
the local server wants: the connection and the migrations check happen once.

Queues follow one rule: a queue URL means SQS; without one, the local stack
processes jobs in a worker thread, and a Lambda function processes them inline
(a thread would freeze with the instance between invocations).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engram.adapters.backends import build_backend
from engram.adapters.embeddings.assets import DEFAULT_DIR, STATIC_MODEL, TRANSFORMERS_MODEL
from engram.adapters.embeddings.catalog import LocalCatalog, RemoteKeys
from engram.adapters.extraction import (
    RuleExtractor,
    acceptable,
    directive,
    suspicious,
    worth_reading,
)
from engram.adapters.libsql import (
    ApiKeyRepository,
    Database,
    ExtractorUsageRepository,
    HistoryRepository,
    IndexCache,
    JobLedgerRepository,
    KeywordIndexCache,
    LibsqlStorageInfo,
    LibsqlVectorTier,
    MaintenanceRepository,
    MemoryRepository,
    RetrievalStatsRepository,
    SearchRepository,
    SettingsDocumentsRepository,
    VectorRowsRepository,
    apply_migrations,
)
from engram.adapters.libsql.database import database_file
from engram.adapters.libsql.hrana import is_remote_url
from engram.adapters.libsql.migrate import applied_versions
from engram.adapters.llm_extractor import HttpExtractionModel
from engram.adapters.process_extractor import OutOfProcess
from engram.adapters.queues import InlineQueue, InProcessQueue, SqsQueue
from engram.adapters.rerank import RerankerFactory
from engram.adapters.sealing import Sealer, sealer_for
from engram.adapters.upstream import HttpUpstream, MissingUpstream
from engram.app.apikeys import ApiKeyService
from engram.app.chat import ChatService
from engram.app.embedding import ActiveEmbedder
from engram.app.extractors import ChosenExtractor, ModelRules
from engram.app.health import FailureLog
from engram.app.jobs import JobService
from engram.app.maintenance import Maintenance
from engram.app.memories import MemoryService
from engram.app.qdrant_tier import QdrantService, QdrantSettingsStore
from engram.app.retrieval import Retriever
from engram.app.routing import BackendManager, LibsqlBackend
from engram.app.settings import SettingsStore
from engram.app.status import StatusService
from engram.app.vectors import VectorService
from engram.config import Config
from engram.domain.models import Job, QdrantSettings, RetrievalRequest
from engram.domain.models.common import to_millis
from engram.domain.models.facts import KnownFact
from engram.domain.urlpolicy import same_origin
from engram.engine import Clock, Engine, Queues, utc_now
from engram.ports import (
    BackendFactory,
    EmbedderCatalog,
    ExtractionModel,
    Extractor,
    JobQueue,
    PointStore,
    Upstream,
    VectorTier,
)

__all__ = ["JobMode", "build_engine", "migrate", "open_database", "open_engine", "reset_engines"]

# How jobs without a queue URL are processed: "auto" (a worker thread locally, inline in
# Lambda), "manual" (held until someone drains the in-process queue: tests, benchmarks)
# or "inline".
JobMode = Literal["auto", "manual", "inline"]

_engines: dict[str, Engine] = {}
_lock = threading.Lock()


def open_database(config: Config) -> Database:
    """A connection to the configured database, schema brought up to date."""
    token = config.db_auth_token.get_secret_value() if config.db_auth_token else None
    db = Database(
        config.db_url,
        auth_token=token,
        cache_mb=config.db_cache_mb,
        busy_timeout_ms=config.db_busy_timeout_ms,
        timeout_s=config.db_timeout_s,
    )
    apply_migrations(db)
    return db


def _sealer(config: Config) -> Sealer:
    key = config.secrets_key.get_secret_value() if config.secrets_key else None
    return sealer_for(key, database_file(config.db_url), is_remote_url(config.db_url))


def migrate(config: Config) -> list[int]:
    """Apply migrations; the versions now recorded."""
    db = open_database(config)
    try:
        return applied_versions(db)
    finally:
        db.close()


@dataclass
class _Late:
    """The engine's job handler, for queues built before the engine they feed."""

    engine: Engine | None = None

    def __call__(self, job: Job) -> object:
        assert self.engine is not None, "a job arrived before the engine was built"
        return self.engine.jobs.handle(job)

    def read_ahead(self, jobs: list[Job]) -> object:
        assert self.engine is not None, "jobs arrived before the engine was built"
        return self.engine.jobs.read_ahead(jobs)


def _queue(
    config: Config, url: str | None, mode: JobMode, late: _Late, *, reads: bool = False
) -> JobQueue:
    """``reads``: the queue of extraction jobs, whose batches are read ahead."""
    if url:
        return SqsQueue(url, endpoint_url=config.aws_endpoint_url)
    if mode == "inline" or (mode == "auto" and config.in_lambda):
        return InlineQueue(late)
    return InProcessQueue(
        late,
        read_ahead=late.read_ahead if reads else None,
        autostart=mode == "auto",
        maxsize=0 if mode == "manual" else 10_000,
    )


def _upstream(config: Config) -> Upstream:
    if not config.upstream_base_url:
        return MissingUpstream()
    key = config.upstream_api_key.get_secret_value() if config.upstream_api_key else None
    return HttpUpstream(
        config.upstream_base_url,
        key,
        timeout_s=config.upstream_timeout_s,
        connect_timeout_s=config.upstream_connect_timeout_s,
    )


def _extraction_model(config: Config) -> ExtractionModel:
    """The LLM extractor's endpoint client: the extractor's own key goes to any endpoint the
    settings name; the upstream's key only to the upstream's own origin."""
    upstream = config.upstream_base_url
    own = config.extractor_api_key
    upstream_key = config.upstream_api_key

    def key_for(base_url: str) -> str | None:
        if own is not None:
            return own.get_secret_value()
        if upstream_key is not None and upstream and same_origin(base_url, upstream):
            return upstream_key.get_secret_value()
        return None

    return HttpExtractionModel(upstream, key_for, timeout_s=config.extractor_timeout_s)


def _when(metadata: dict[str, object]) -> str | None:
    when = metadata.get("when")
    return when if isinstance(when, str) else None


def _point_store(config: Config) -> Callable[[QdrantSettings], PointStore]:
    def build(settings: QdrantSettings) -> PointStore:
        from engram.adapters.qdrant_store import QdrantStore  # qdrant-client costs ~1 s to import

        return QdrantStore(settings, config.data_dir)

    return build


def open_engine(
    config: Config,
    *,
    clock: Clock = utc_now,
    database: Database | None = None,
    jobs: JobMode = "auto",
    upstream: Upstream | None = None,
    catalog: EmbedderCatalog | None = None,
    vector_tier: Callable[[int], VectorTier] | None = None,
    backend_factory: BackendFactory | None = None,
    extraction_model: ExtractionModel | None = None,
) -> Engine:
    """A new engine for ``config``. Tests may hand in a database, a clock, a job mode, and
    their own parts at the edges: an upstream, an embedder catalog, a vector tier (a
    factory of the tier for a dimension), a builder of remote memory backends."""
    db = database if database is not None else open_database(config)

    def now_ms() -> int:
        return to_millis(clock())

    failures = FailureLog(now_ms)
    late = _Late()
    queues = Queues(
        extraction=_queue(config, config.extraction_queue_url, jobs, late, reads=True),
        embedding=_queue(config, config.embedding_queue_url, jobs, late),
    )
    documents = SettingsDocumentsRepository(db, _sealer(config))
    settings = SettingsStore(documents, db, now_ms, ttl_s=config.settings_cache_ttl_s)
    rows = VectorRowsRepository(db)
    keys = RemoteKeys(config.upstream_base_url, config.upstream_api_key, config.embedding_api_key)
    catalog = catalog or LocalCatalog(
        assets_root=config.static_cache_dir or DEFAULT_DIR,
        static_model=config.static_model or STATIC_MODEL,
        transformers_model=config.transformers_model or TRANSFORMERS_MODEL,
        remote=keys,
        cache_max=config.embedding_cache_max,
        cache_ttl_s=config.embedding_cache_ttl_ms / 1000,
    )
    embeddings = ActiveEmbedder(settings, catalog)
    qdrant = QdrantService(
        QdrantSettingsStore(documents, db, now_ms),
        settings,
        _point_store(config),
        embeddings,
        rows,
        db,
        now_ms,
        default_url=config.qdrant_url,
        top_k=config.vec_top_k,
        allow_embedded=not config.in_lambda,
        failures=failures,
    )
    cache = IndexCache(
        config.vector_cache_mb * 1024 * 1024, int(config.vector_key_max_mb * 1024 * 1024)
    )
    vectors = VectorService(
        embeddings,
        rows,
        vector_tier or (lambda dim: LibsqlVectorTier(cache, rows, dim)),
        qdrant,
        now_ms,
        failures=failures,
        int8=config.vec_quantization == "int8",
        background_s=config.reindex_background_s,
        trust_s=config.settings_cache_ttl_s,
        lazy_embedding=(
            not db.is_remote if config.lazy_embedding is None else config.lazy_embedding
        ),
    )
    mb = config.keyword_cache_mb
    keywords = KeywordIndexCache(mb * 1024 * 1024) if mb else None
    search = SearchRepository(db, keywords=keywords)
    stats = RetrievalStatsRepository(
        db,
        failed=lambda message: failures.failed("retrieval stats", message),
        recovered=lambda: failures.recovered("retrieval stats"),
    )
    # The local server reads messages in a process of its own: the rules' CPU work would
    # otherwise take the interpreter that serves every tenant's chats.
    rules: Extractor = RuleExtractor()
    reader: OutOfProcess | None = None
    if jobs == "auto" and isinstance(queues.extraction, InProcessQueue):
        rules = reader = OutOfProcess(rules)
    extractor = ChosenExtractor(
        settings.get,
        rules,
        extraction_model or _extraction_model(config),
        ExtractorUsageRepository(db),
        ModelRules(worth_reading, suspicious, directive, acceptable),
        failures,
    )
    late_retriever: list[Retriever] = []

    def related(owner: str, text: str) -> list[KnownFact]:
        """The owner's closest facts to ``text``: what a model reconciles a turn with."""
        if not late_retriever:
            return []
        request = RetrievalRequest(query=text[:2000], limit=20, max_tokens=4000)
        found = late_retriever[0].preview(owner, request).results
        return [
            KnownFact(m.id, m.content, str(m.metadata.get("category", "")), _when(m.metadata))
            for m in found
            if m.metadata.get("kind") != "turn"
        ]

    memories = MemoryService(
        MemoryRepository(db),
        HistoryRepository(db),
        JobLedgerRepository(db),
        stats,
        db,
        now_ms,
        embedding_queue=queues.embedding,
        on_remove=(qdrant.forget, embeddings.forget, search.forget),
        failures=failures,
        extractor=extractor,
        related=related,
    )
    retriever = Retriever(
        search,
        stats,
        settings,
        vectors,
        now_ms,
        rrf_k=config.rrf_k,
        vec_top_k=config.vec_top_k,
        reranker=RerankerFactory(settings.get, keys),
        failures=failures,
    )
    late_retriever.append(retriever)
    backends = BackendManager(
        settings,
        LibsqlBackend(memories, retriever),
        backend_factory or build_backend,
        memories,
        now_ms,
        failures=failures,
    )
    engine = Engine(
        config=config,
        clock=clock,
        memories=memories,
        retrieval=retriever,
        backends=backends,
        chat=ChatService(
            backends,
            settings,
            upstream if upstream is not None else _upstream(config),
            queues.extraction,
            provider=config.upstream_provider,
            failures=failures,
            now_ms=now_ms,
        ),
        vectors=vectors,
        qdrant=qdrant,
        settings=settings,
        keys=ApiKeyService(ApiKeyRepository(db), now_ms),
        maintenance=Maintenance(
            MaintenanceRepository(db),
            memories,
            settings,
            db,
            now_ms,
            point_cleanup=qdrant.cleanup_points,
        ),
        status=StatusService(
            settings,
            embeddings,
            rows,
            search,
            qdrant,
            vectors,
            LibsqlStorageInfo(db),
            failures,
            backends=backends.status,
            extractor=extractor.status,
        ),
        jobs=JobService(memories, vectors, failures, learn=backends.learn),
        queues=queues,
        # Workers first (nothing may still be writing), and a database handed in belongs
        # to the caller, who closes it.
        closers=(
            extractor.close,  # a model call under way fails at once: nobody waits for it
            *((reader.close,) if reader is not None else ()),
            *(
                q.close
                for q in (queues.extraction, queues.embedding)
                if isinstance(q, InProcessQueue)
            ),
            backends.close,
            qdrant.close,
            stats.close,  # counts added up in memory, written before the file closes
            *((db.close,) if database is None else ()),
        ),
    )
    late.engine = engine
    return engine


def build_engine(config: Config | None = None) -> Engine:
    config = config if config is not None else Config()
    with _lock:
        engine = _engines.get(config.db_url)
        if engine is None:
            engine = _engines[config.db_url] = open_engine(config)
        return engine


def reset_engines() -> None:
    """Close and forget cached engines (tests, and the CLI before exit)."""
    with _lock:
        for engine in _engines.values():
            engine.close()
        _engines.clear()
