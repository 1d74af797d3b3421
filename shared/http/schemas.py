"""HTTP-only envelopes. Resource bodies are the engine's own models."""

from __future__ import annotations

from pydantic import ConfigDict

from engram.models import ApiModel, MemoryPage, RetrievalRequest
from engram.models.common import ApiKeyId

__all__ = ["ImportResult", "MemoryListResponse", "PreviewRequest", "StatsSummary"]


class StatsSummary(ApiModel):
    total: int
    tokens_used: int
    hit_rate: float


class MemoryListResponse(MemoryPage):
    stats: StatsSummary


class PreviewRequest(RetrievalRequest):
    """A retrieval to simulate: whose memories, and the usual retrieval options."""

    model_config = ConfigDict(extra="forbid")

    api_key_id: ApiKeyId


class ImportResult(ApiModel):
    received: int
    created: int
    updated: int
