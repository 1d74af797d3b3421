"""What the engine reports about itself: health, tiers, embedding sources."""

from __future__ import annotations

from pydantic import Field

from engram.domain.models.backends import BackendsStatus
from engram.domain.models.common import ApiModel, UtcDatetime

__all__ = [
    "ComponentFailure",
    "EmbeddingProvider",
    "EngineStatus",
    "ExtractorStatus",
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


class ExtractorStatus(ApiModel):
    """Who learns from chats, and what the LLM extractor did since this process started."""

    mode: str = Field(description="rules, llm or rules+llm (settings extractor)")
    model: str | None = Field(None, description="The LLM extractor's model, when one is used")
    endpoint: str | None = Field(
        None, description="Where it is called: extractorBaseUrl, or null for the upstream"
    )
    daily_tokens: int = Field(description="Tokens the model may spend per API key per UTC day")
    turns_read: int = Field(0, description="Turns of chats read since start")
    turns_sent: int = Field(0, description="Of those, turns the cost gate sent to the model")
    calls: int = 0
    failed: int = Field(0, description="Calls that stored nothing: unreachable, slow, nonsense")
    malformed: int = Field(0, description="Of the failed, answers that were not the schema")
    over_budget: int = Field(0, description="Calls skipped: the key's daily tokens were spent")
    suspicious: int = Field(
        0, description="Facts dropped from turns that addressed the memory system itself"
    )
    facts: int = Field(0, description="Facts the model added to what the rules found")
    dropped: int = Field(0, description="Facts of the model the checks turned away")
    tokens: int = Field(0, description="Tokens the model spent since start")


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
    extractor: ExtractorStatus | None = Field(
        None, description="Who learns from chats (rules, a model, both) and at what cost"
    )
    failures: list[ComponentFailure] = Field(
        default_factory=list,
        description="Components failing now (fallbacks, background work); cleared on success",
    )
    degraded_retrievals: int = Field(
        0,
        description="Retrievals this process answered with a part failing (keyword index,"
        " embedder, a vector store, reranker, profile) since it started",
    )
