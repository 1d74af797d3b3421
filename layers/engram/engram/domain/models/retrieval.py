"""Retrieval request and result models (also the shape of the retrieval preview)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, PrivateAttr

from engram.domain.models.backends import BackendFailure
from engram.domain.models.chat import ChatMessage
from engram.domain.models.common import (
    JSON_INT,
    JSON_NUMBER,
    ApiModel,
    InjectionMode,
    Scope,
    SessionId,
    Strategy,
    StrategyName,
)
from engram.domain.models.memory import Memory

__all__ = [
    "InjectionPreview",
    "PreviewRequest",
    "PreviewResult",
    "Resolution",
    "RetrievalRequest",
    "RetrievalResult",
    "RetrievedMemory",
    "Tier",
]

# "profile": injected with every request (models/profile.py); the others are recall,
# by the evidence that found them. "backend": found by a remote memory backend's own
# search (Obsidian, Notion, a REST API).
Tier = Literal["profile", "keyword", "vector", "hybrid", "recent", "backend"]


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
    strategy: StrategyName | None = Field(
        None, description="As in the settings: recent = exact, any other name = hybrid"
    )
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
    profile_tokens: Annotated[int, Field(ge=0, le=16_000), JSON_INT] | None = Field(
        None,
        description="Override the settings' profileTokens for this request (0: no profile)",
    )
    # The texts of the messages the request already carries (whitespace folded): a
    # stored turn saying one of them is not recalled beside it. Set by the chat path,
    # never by a caller (a private attribute: no field of the API).
    _said: frozenset[str] = PrivateAttr(default_factory=frozenset)

    def saying(self, texts: list[str]) -> RetrievalRequest:
        """This request, for a chat that already carries ``texts``."""
        copy = self.model_copy()
        copy._said = frozenset(" ".join(t.split()) for t in texts if t.strip())
        return copy

    @property
    def said(self) -> frozenset[str]:
        return self._said


class RetrievedMemory(Memory):
    score: float = Field(description="Final rank score, higher is better")
    tier: Tier = Field(description="Which tier put this memory in the result")
    tokens: int
    fts_score: float | None = Field(None, description="Keyword relevance (negated BM25)")
    vec_score: float | None = Field(None, description="Cosine similarity to the query")
    keyword_coverage: float | None = Field(
        None, description="Share of the query's words the memory contains (keyword matches)"
    )
    reason: str | None = Field(
        None, description="Why this memory was injected: its tier's rule, and the evidence"
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
    degraded: list[str] = Field(
        default_factory=list,
        description="Parts that failed answering this request (keyword index, embedder,"
        " vector store ..., reranker, profile): what they hold may be missing. Empty when"
        " every part answered; a fallback chosen by configuration is not a failure",
    )
    backend: str = Field("libsql", description="The memory backend that answered")
    backend_failures: list[BackendFailure] = Field(
        default_factory=list,
        description="Backends asked before the one that answered, and why they did not",
    )


class RetrievalResult(ApiModel):
    results: list[RetrievedMemory] = Field(description="The profile first, then the recall")
    tokens_used: int
    profile_tokens: int = Field(0, description="Of tokensUsed, the profile's")
    recall_tokens: int = Field(0, description="Of tokensUsed, the recalled memories'")
    resolution: Resolution


class PreviewRequest(RetrievalRequest):
    """A retrieval preview: what to retrieve, and the chat request to inject into. The
    query defaults to the last user message of ``messages``; without ``messages`` the
    request is that one user message."""

    model_config = ConfigDict(extra="forbid")

    messages: Annotated[list[ChatMessage], Field(min_length=1, max_length=256)] | None = None
    model: Annotated[str, Field(max_length=256)] | None = Field(
        None, description="The model id: it decides the provider's injection rule"
    )
    injection_mode: InjectionMode | None = Field(
        None, description="prepend or cacheSafe; the settings' injectionMode when omitted"
    )


class InjectionPreview(ApiModel):
    mode: InjectionMode
    provider: str | None = Field(description="The provider whose injection rule applies")
    messages: list[dict[str, Any]] = Field(
        description="The messages the upstream would receive, memories injected"
    )


class PreviewResult(RetrievalResult):
    injection: InjectionPreview
