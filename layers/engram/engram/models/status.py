"""What the engine reports about itself: health, tiers, embedding sources."""

from __future__ import annotations

from pydantic import Field

from .backends import BackendsStatus
from .common import ApiModel, UtcDatetime

__all__ = [
    "ComponentFailure",
    "EmbeddingProvider",
    "EngineStatus",
    "HealthReport",
    "KeywordTierStatus",
    "QdrantStatus",
    "VectorStoreStatus",
]


class ComponentFailure(ApiModel):
    component: str = Field(description="embedder, upstream, extraction queue, jobs...")
    error: str
    at: UtcDatetime = Field(description="When it last failed")
    count: int = Field(description="Failures in a row since the last success")


class HealthReport(ApiModel):
    working: bool
    latency_ms: float
    error: str | None = None


class KeywordTierStatus(ApiModel):
    engine: str = "fts5"
    available: bool


class EmbeddingProvider(ApiModel):
    source: str
    model: str | None
    dimension: int | None
    available: bool
    reason: str | None = Field(None, description="Why it is not available, when it is not")


class VectorStoreStatus(ApiModel):
    requested: str = Field(description="The vectorStore setting")
    active: str | None = Field(
        description="The store vector queries go to first now (retrieval's own rule); null:"
        " keyword only. A query that store fails falls back (see the resolution)"
    )
    dimension: int | None
    signature: str | None
    last_reset_at: UtcDatetime | None
    pending_reindex: int
    total_memories: int


class QdrantStatus(ApiModel):
    enabled: bool
    primary: bool = Field(description="vectorStore is 'qdrant': retrieval asks Qdrant first")
    mode: str
    healthy: bool | None = None
    latency_ms: float | None = None
    points: int | None = None
    dimension: int | None = None
    error: str | None = None


class EngineStatus(ApiModel):
    keyword_tier: KeywordTierStatus
    embedding_source: str | None = Field(description="The source retrieval would embed with")
    embedding_configured: str | None = Field(
        None,
        description="The source the stored settings choose; every process embeds with it"
        " or not at all (null: no source is enabled, keyword only)",
    )
    embedding_unavailable: str | None = Field(
        None,
        description="Why this process cannot build the configured embedder: it writes and"
        " resets no vector (memories wait in pendingReindex) and retrieves on keywords",
    )
    embedding_providers: list[EmbeddingProvider]
    vector_store: VectorStoreStatus
    qdrant: QdrantStatus
    rerank_enabled: bool
    schema_version: int
    remote_database: bool
    backends: BackendsStatus | None = Field(
        None, description="The memory backends: primary, fallbacks, each one's health"
    )
    failures: list[ComponentFailure] = Field(
        default_factory=list,
        description="Components failing now (fallbacks, background work); cleared on success",
    )
