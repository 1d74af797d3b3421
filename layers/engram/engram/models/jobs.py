"""Queue messages. They cross process boundaries (SQS), so they are models too."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from .common import ApiKeyId, ApiModel, SessionId

__all__ = ["EmbeddingJob", "ExtractionJob", "ExtractionOutcome", "Job"]

JobId = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")]


class ExtractionJob(ApiModel):
    """Extract facts from one finished chat exchange (user's last message + answer)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["extraction"] = "extraction"
    api_key_id: ApiKeyId
    session_id: SessionId | None = None
    # The newest 64 KiB are used; the cap here only bounds a message (SQS allows 256 KiB).
    text: Annotated[str, Field(max_length=200_000)]
    request_id: JobId = Field(description="Idempotency key: the chat request it came from")


class EmbeddingJob(ApiModel):
    """Compute vectors for memories created or changed (consumed by the embedding worker)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["embedding"] = "embedding"
    api_key_id: ApiKeyId
    memory_ids: Annotated[list[str], Field(min_length=1, max_length=500)]
    request_id: JobId


# Either kind of queued job (the in-process queue and SQS carry both).
Job = ExtractionJob | EmbeddingJob


class ExtractionOutcome(ApiModel):
    request_id: str
    duplicate: bool = Field(description="The job was processed before; nothing was done")
    created: list[str]
    changed: list[str]
    unchanged: list[str]
