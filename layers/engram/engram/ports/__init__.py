"""Ports: what the engine's use cases need from the outside, as Protocols.

The core (memories, retrieval, chat, vectors, settings, keys, maintenance)
depends on these and on the models only; adapters in ``engram.adapters``
implement them (libSQL, Qdrant, embedders, the reranker, the upstream, queues)
and ``engram.wiring`` plugs one into the other. A test double at the edge
implements the same Protocol.

Conventions every adapter keeps: the owner is a condition inside its own query
(tenant isolation is never a filter applied afterwards), and failures are raised
as ``EngramError`` subclasses (``StorageError``, ``UnavailableError``...), never
as a driver's own exceptions.
"""

from engram.ports.chat import (
    Upstream,
    UpstreamResponse,
)
from engram.ports.learning import (
    ExtractionModel,
    Extractor,
    ExtractorUsage,
    JobQueue,
)
from engram.ports.storage import (
    ApiKeyStore,
    BackendFactory,
    BackendLifecycle,
    FactHistory,
    JobLedger,
    MaintenanceStore,
    MemoryBackend,
    MemoryStore,
    RankingRows,
    RetrievalStats,
    SearchIndex,
    SettingsDocuments,
    StorageInfo,
    UnitOfWork,
)
from engram.ports.vectors import (
    DenseScores,
    Embedder,
    EmbedderCatalog,
    EmbedderChoice,
    EmbeddingCache,
    PendingVector,
    PointStore,
    PointStoreFactory,
    Reranker,
    VectorMeta,
    VectorRows,
    Vectors,
    VectorTier,
)

__all__ = [
    "ApiKeyStore",
    "BackendFactory",
    "BackendLifecycle",
    "DenseScores",
    "Embedder",
    "EmbedderCatalog",
    "EmbedderChoice",
    "EmbeddingCache",
    "ExtractionModel",
    "Extractor",
    "ExtractorUsage",
    "FactHistory",
    "JobLedger",
    "JobQueue",
    "MaintenanceStore",
    "MemoryBackend",
    "MemoryStore",
    "PendingVector",
    "PointStore",
    "PointStoreFactory",
    "RankingRows",
    "Reranker",
    "RetrievalStats",
    "SearchIndex",
    "SettingsDocuments",
    "StorageInfo",
    "UnitOfWork",
    "Upstream",
    "UpstreamResponse",
    "VectorMeta",
    "VectorRows",
    "VectorTier",
    "Vectors",
]
