"""The composition root's body: ``open_engine`` and what it builds (the package's
docstring says what the composition root is)."""

from __future__ import annotations

import threading
from collections.abc import Callable

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
from engram.adapters.process_extractor import OutOfProcess
from engram.adapters.queues import InProcessQueue
from engram.adapters.rerank import RerankerFactory
from engram.adapters.sealing import Sealer, sealer_for
from engram.app.apikeys import ApiKeyService
from engram.app.chat import ChatService
from engram.app.embedding import ActiveEmbedder
from engram.app.extractors import ChosenExtractor, ModelRules
from engram.app.health import FailureLog
from engram.app.jobs import JobService
from engram.app.maintenance import Maintenance
from engram.app.memories import MemoryService
from engram.app.qdrant_tier import QdrantService
from engram.app.retrieval import Retriever
from engram.app.routing import BackendManager, LibsqlBackend
from engram.app.settings import QdrantSettingsStore, SettingsStore
from engram.app.status import StatusService
from engram.app.vectors import VectorService
from engram.config import Config
from engram.domain.models import RetrievalRequest
from engram.domain.models.common import to_millis
from engram.domain.models.facts import KnownFact
from engram.engine import Clock, Engine, Queues, utc_now
from engram.ports import (
    BackendFactory,
    EmbedderCatalog,
    ExtractionModel,
    Extractor,
    Upstream,
    VectorTier,
)
from engram.wiring.edges import (
    JobMode,
    Late,
    extraction_model_for,
    point_store_for,
    queue_for,
    upstream_for,
)

__all__ = [
    "JobMode",
    "build_engine",
    "migrate",
    "open_database",
    "open_engine",
    "open_keys",
    "reset_engines",
]


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


def open_keys(config: Config, *, clock: Clock = utc_now) -> ApiKeyService:
    """The API keys alone, without an engine (the HTTP API's authorizer: it checks a
    credential and nothing else, so it starts in a fraction of an engine's time)."""

    def now_ms() -> int:
        return to_millis(clock())

    return ApiKeyService(ApiKeyRepository(open_database(config)), now_ms)


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


def _when(metadata: dict[str, object]) -> str | None:
    when = metadata.get("when")
    return when if isinstance(when, str) else None


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
    late = Late()
    queues = Queues(
        extraction=queue_for(config, config.extraction_queue_url, jobs, late, reads=True),
        embedding=queue_for(config, config.embedding_queue_url, jobs, late),
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
        point_store_for(config),
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
        extraction_model or extraction_model_for(config),
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
            upstream if upstream is not None else upstream_for(config),
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
