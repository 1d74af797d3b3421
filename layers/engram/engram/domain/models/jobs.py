"""Queue messages. They cross process boundaries (SQS), so they are models too."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from engram.domain.models.common import ApiKeyId, ApiModel, SessionId, UtcDatetime

__all__ = [
    "MAX_CONTEXT_CHARS",
    "MAX_CONTEXT_TURNS",
    "EmbeddingJob",
    "ExtractionJob",
    "ExtractionOutcome",
    "Job",
    "JobTurn",
]

# How much of the conversation before an exchange its job carries (``context``).
MAX_CONTEXT_TURNS = 6
MAX_CONTEXT_CHARS = 2000

JobId = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")]


class JobTurn(ApiModel):
    """One message of the exchange, with who said it: facts about the user come from the
    user's turns; the assistant's are read only when ``extractFrom`` is ``both``."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    # The newest 64 KiB are read; the cap here only bounds a message (SQS allows 256 KiB).
    text: Annotated[str, Field(max_length=200_000)]
    # The message's ``name`` when the application gives one (who spoke, in a group chat).
    name: Annotated[str, Field(max_length=64)] | None = None


class ExtractionJob(ApiModel):
    """Extract facts from one finished chat exchange (the user's last message, and the
    answer when the settings extract from both; with conversation memory too, the
    assistant's messages that opened the conversation, on its first exchange). Its text
    is redacted before queuing."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["extraction"] = "extraction"
    api_key_id: ApiKeyId
    session_id: SessionId | None = None
    turns: Annotated[list[JobTurn], Field(max_length=8)] = Field(default_factory=list)
    # The messages before the exchange (the newest few, each clipped): read by an extractor
    # that resolves "this is Max", "there" or "it" from them, never learnt from.
    context: Annotated[list[JobTurn], Field(max_length=MAX_CONTEXT_TURNS)] = Field(
        default_factory=list
    )
    # Jobs queued before turns existed carry the exchange as one text (read as before).
    text: Annotated[str, Field(max_length=200_000)] | None = None
    request_id: JobId = Field(description="Idempotency key: the chat request it came from")
    # Store the turns themselves too (settings' storeConversation when the chat ran), as
    # said at ``at`` (the chat's time, not the worker's).
    conversation: bool = False
    at: UtcDatetime | None = None


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
    retired: list[str] = Field(default_factory=list, description="Facts moved to the history")
