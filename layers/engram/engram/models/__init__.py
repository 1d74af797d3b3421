"""The engine's typed models (pydantic), split by direction."""

from .chat import ChatCompletionRequest, ChatMessage, ChatOptions
from .common import (
    DAY_MS,
    GLOBAL_OWNER,
    MAX_CONTENT_CHARS,
    MAX_METADATA_BYTES,
    ApiModel,
    MemoryType,
    Scope,
    Strategy,
)
from .jobs import EmbeddingJob, ExtractionJob, ExtractionOutcome, Job
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
    UpsertOutcome,
)
from .owner import OwnerFilter, owner_filter
from .qdrant import (
    MAX_TOP_K,
    QdrantHealth,
    QdrantHit,
    QdrantSettings,
    QdrantSettingsPublic,
    QdrantSettingsUpdate,
)
from .retrieval import Resolution, RetrievalRequest, RetrievalResult, RetrievedMemory
from .settings import MAX_TOKENS_LIMIT, MemorySettings, MemorySettingsUpdate
from .status import (
    ComponentFailure,
    EmbeddingProvider,
    EngineStatus,
    HealthReport,
    KeywordTierStatus,
    QdrantStatus,
    VectorStoreStatus,
)
from .vectors import ReindexRequest, ReindexResult

__all__ = [
    "DAY_MS",
    "GLOBAL_OWNER",
    "MAX_CONTENT_CHARS",
    "MAX_METADATA_BYTES",
    "MAX_TOKENS_LIMIT",
    "MAX_TOP_K",
    "ApiKey",
    "ApiKeyCreate",
    "ApiKeyCreated",
    "ApiModel",
    "ChatCompletionRequest",
    "ChatMessage",
    "ChatOptions",
    "CleanupResult",
    "ComponentFailure",
    "EmbeddingJob",
    "EmbeddingProvider",
    "EngineStatus",
    "ExtractionJob",
    "ExtractionOutcome",
    "HealthReport",
    "Job",
    "KeywordTierStatus",
    "Memory",
    "MemoryCreate",
    "MemoryImport",
    "MemoryPage",
    "MemoryQuery",
    "MemorySettings",
    "MemorySettingsUpdate",
    "MemoryStats",
    "MemoryType",
    "MemoryUpdate",
    "OwnerFilter",
    "QdrantHealth",
    "QdrantHit",
    "QdrantSettings",
    "QdrantSettingsPublic",
    "QdrantSettingsUpdate",
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
    "UpsertOutcome",
    "VectorStoreStatus",
    "owner_filter",
]
