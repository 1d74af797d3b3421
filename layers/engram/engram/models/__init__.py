"""The engine's typed models (pydantic), split by direction."""

from .common import (
    GLOBAL_OWNER,
    MAX_CONTENT_BYTES,
    MAX_METADATA_BYTES,
    ApiModel,
    MemoryType,
    Scope,
    Strategy,
)
from .jobs import EmbeddingJob, ExtractionJob, ExtractionOutcome
from .keys import ApiKey, ApiKeyCreate, ApiKeyCreated
from .maintenance import CleanupResult, SummarizeRequest, SummarizeResult
from .memory import (
    Memory,
    MemoryCreate,
    MemoryImport,
    MemoryPage,
    MemoryQuery,
    MemoryStats,
    MemoryUpdate,
)
from .retrieval import Resolution, RetrievalRequest, RetrievalResult, RetrievedMemory
from .status import (
    EmbeddingProvider,
    EngineStatus,
    HealthReport,
    KeywordTierStatus,
    QdrantStatus,
    VectorStoreStatus,
)
from .vectors import ReindexRequest, ReindexResult

__all__ = [
    "GLOBAL_OWNER",
    "MAX_CONTENT_BYTES",
    "MAX_METADATA_BYTES",
    "ApiKey",
    "ApiKeyCreate",
    "ApiKeyCreated",
    "ApiModel",
    "CleanupResult",
    "EmbeddingJob",
    "EmbeddingProvider",
    "EngineStatus",
    "ExtractionJob",
    "ExtractionOutcome",
    "HealthReport",
    "KeywordTierStatus",
    "Memory",
    "MemoryCreate",
    "MemoryImport",
    "MemoryPage",
    "MemoryQuery",
    "MemoryStats",
    "MemoryType",
    "MemoryUpdate",
    "QdrantStatus",
    "ReindexRequest",
    "ReindexResult",
    "Resolution",
    "RetrievalRequest",
    "RetrievalResult",
    "RetrievedMemory",
    "Scope",
    "Strategy",
    "SummarizeRequest",
    "SummarizeResult",
    "VectorStoreStatus",
]
