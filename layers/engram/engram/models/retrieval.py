"""Retrieval request and result models (also the shape of the retrieval preview)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from .backends import BackendFailure
from .common import JSON_INT, JSON_NUMBER, ApiModel, Scope, SessionId, Strategy
from .memory import Memory

__all__ = ["Resolution", "RetrievalRequest", "RetrievalResult", "RetrievedMemory", "Tier"]

# "backend": found by a remote memory backend's own search (Obsidian, Notion, a REST API).
Tier = Literal["keyword", "vector", "hybrid", "recent", "standing", "backend"]


class RetrievalRequest(ApiModel):
    """What to retrieve. Unset fields take the stored settings' values. ``scope:
    session`` needs a ``sessionId``."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "if": {"properties": {"scope": {"const": "session"}}, "required": ["scope"]},
            "then": {"required": ["sessionId"], "properties": {"sessionId": {"type": "string"}}},
        },
    )

    query: Annotated[str, Field(max_length=16_000)] = ""
    strategy: Strategy | None = None
    max_tokens: Annotated[int, Field(ge=-1_000_000, le=1_000_000), JSON_INT] | None = Field(
        None, description="Token budget; clamped to [1, 16000]; 0 or less returns nothing"
    )
    limit: Annotated[int, Field(ge=1, le=100), JSON_INT] = 20
    session_id: SessionId | None = None
    scope: Scope = Scope.API_KEY
    relevance_floor: Annotated[float, Field(ge=0.0, le=1.0), JSON_NUMBER] | None = Field(
        None,
        description="Override the settings' relevance floor for this request (0: none)",
    )


class RetrievedMemory(Memory):
    score: float = Field(description="Final rank score, higher is better")
    tier: Tier = Field(description="Which tier put this memory in the result")
    tokens: int
    fts_score: float | None = Field(None, description="Keyword relevance (negated BM25)")
    vec_score: float | None = Field(None, description="Cosine similarity to the query")
    keyword_coverage: float | None = Field(
        None, description="Share of the query's words the memory contains (keyword matches)"
    )


class Resolution(ApiModel):
    strategy: Strategy
    keyword_tier: Literal["fts5", "unavailable", "backend"] = Field(
        description="backend: a remote memory backend searched with its own index"
    )
    embedding_source: str | None
    vector_store: str | None
    fallback: bool
    reason: str | None
    backend: str = Field("libsql", description="The memory backend that answered")
    backend_failures: list[BackendFailure] = Field(
        default_factory=list,
        description="Backends asked before the one that answered, and why they did not",
    )


class RetrievalResult(ApiModel):
    results: list[RetrievedMemory]
    tokens_used: int
    resolution: Resolution
