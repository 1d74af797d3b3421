"""Summarization and cleanup requests and results."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictBool

from engram.domain.models.common import JSON_INT, ApiKeyId, ApiModel, MemoryType, UtcDatetime

__all__ = [
    "CleanupResult",
    "SummarizeRequest",
    "SummarizeResult",
    "SummaryCandidate",
    "SummaryDraft",
]


class SummarizeRequest(ApiModel):
    model_config = ConfigDict(extra="forbid")

    older_than_days: Annotated[int, Field(ge=1, le=3650), JSON_INT] = Field(
        30, description="Memories last written more than this many days ago"
    )
    api_key_id: ApiKeyId | None = Field(None, description="One key; every key when omitted")
    dry_run: StrictBool = Field(True, description="Report what would change, change nothing")


class SummaryCandidate(ApiModel):
    """A memory the summarization replaces, and what becomes of its text."""

    id: str
    api_key_id: str
    session_id: str | None
    type: MemoryType
    key: str
    content: str
    tokens: int
    created_at: UtcDatetime
    updated_at: UtcDatetime
    outcome: Literal["kept", "duplicate", "superseded"] = Field(
        description="kept: shortened into a summary; duplicate: another candidate says the"
        " same or more; superseded: a newer candidate about the same thing replaces it"
    )
    line: str | None = Field(description="The shortened text the summary keeps (kept only)")
    summary_key: str = Field(description="The key of the summary that replaces it")


class SummaryDraft(ApiModel):
    """A summary memory: written, or (dry run) the one that would be written. Its
    ``createdAt``/``updatedAt`` are those of the memories it replaces (``validFrom``:
    the oldest first statement, ``validTo``: the newest write), never the time of the
    summarization, so retention treats it as it would its newest original."""

    api_key_id: str
    session_id: str | None
    type: MemoryType
    key: str
    content: str
    metadata: dict[str, Any]
    tokens: int
    valid_from: UtcDatetime
    valid_to: UtcDatetime
    expires_at: UtcDatetime | None
    replaces: list[str] = Field(description="Ids of the memories it replaces")


class SummarizeResult(ApiModel):
    candidates: list[SummaryCandidate] = Field(
        description="The memories replaced (or, on a dry run, that would be)"
    )
    summaries: list[SummaryDraft] = Field(
        description="The summary memories written (or, on a dry run, that would be)"
    )
    tokens_before: int = Field(description="Tokens of the candidates' text")
    tokens_after: int = Field(description="Tokens of the summaries' text")
    tokens_saved: int
    past_retention: int = Field(
        description="Old memories left alone because retention already hides them"
        " (the cleanup schedule removes them)"
    )
    dry_run: bool


class CleanupResult(ApiModel):
    expired: int
    past_retention: int
    tombstones: int
    processed_jobs: int
    qdrant_points: int | None = Field(None, description="Qdrant points removed, when enabled")
    dry_run: bool
