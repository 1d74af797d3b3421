"""Reindex requests and results."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, StrictBool

from engram.domain.models.common import ApiModel

__all__ = ["ReindexRequest", "ReindexResult"]


class ReindexRequest(ApiModel):
    model_config = ConfigDict(extra="forbid")

    force: StrictBool = Field(False, description="Re-embed every memory, not only pending ones")
    target: Literal["libsql", "qdrant"] = Field(
        "libsql", description="'qdrant': write memories' vectors into the Qdrant collection"
    )


class ReindexResult(ApiModel):
    started: bool = Field(description="Whether an embedder is available to do the work")
    pending: int = Field(description="Memories still waiting for a vector after this call")
    processed: int = Field(0, description="Memories embedded by this call")
    reason: str | None = None
