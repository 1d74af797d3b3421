"""HTTP-only envelopes. Resource bodies are the engine's own models."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from engram.models import ApiModel, MemoryPage, RetrievalRequest
from engram.models.common import ApiKeyId

__all__ = [
    "ImportItemError",
    "ImportResult",
    "MemoryListResponse",
    "PreviewRequest",
    "StatsSummary",
]


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


class ImportItemError(ApiModel):
    index: int = Field(description="0-based position of the item (line - 1 for NDJSON)")
    field: str | None
    message: str


class ImportResult(ApiModel):
    received: int
    created: int
    updated: int


MaxItems = Annotated[int, Field(ge=1)]
