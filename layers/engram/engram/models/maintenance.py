"""Summarization and cleanup requests and results."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, StrictBool

from .common import JSON_INT, ApiKeyId, ApiModel

__all__ = ["CleanupResult", "SummarizeRequest", "SummarizeResult"]


class SummarizeRequest(ApiModel):
    model_config = ConfigDict(extra="forbid")

    older_than_days: Annotated[int, Field(ge=1, le=3650), JSON_INT] = 30
    api_key_id: ApiKeyId | None = Field(None, description="One key; every key when omitted")
    dry_run: StrictBool = Field(True, description="Report what would change, change nothing")


class SummarizeResult(ApiModel):
    candidates: int = Field(description="Memories older than the cut-off")
    tokens_saved: int
    summaries: int = Field(description="Summary memories written (0 on a dry run)")
    dry_run: bool


class CleanupResult(ApiModel):
    expired: int
    past_retention: int
    tombstones: int
    processed_jobs: int
    qdrant_points: int | None = Field(None, description="Qdrant points removed, when enabled")
    dry_run: bool
