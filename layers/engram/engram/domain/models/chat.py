"""The chat proxy's request, as far as Engram reads it.

Permissive on purpose: Engram forwards whatever OpenAI-compatible parameters the
client sends (``extra="allow"``), and only insists on what it needs itself: a
model id and at least one message with a role.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from engram.domain.models.common import InjectionMode, Scope, Strategy

__all__ = ["ChatCompletionRequest", "ChatMessage", "ChatOptions"]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: Any = Field(None, description="Text, or a list of content parts")

    @field_validator("content")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        # A NUL cannot be stored (the create route refuses it too): accepted here, the turn
        # and its facts would be dropped after the answer, with only a log line to show.
        if _holds_nul(value):
            raise ValueError("holds a NUL character (U+0000), which memory cannot store")
        return value


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_holds_nul(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_nul(item) for item in value.values())
    return False


class ChatCompletionRequest(BaseModel):
    """OpenAI's chat completion request; unknown parameters are forwarded untouched."""

    model_config = ConfigDict(extra="allow")

    model: str
    messages: Annotated[list[ChatMessage], Field(min_length=1)]
    stream: StrictBool = False

    def forwarded(self) -> dict[str, Any]:
        """The body as the client sent it (fields it did not send stay absent)."""
        return self.model_dump(exclude_unset=True)


@dataclass(frozen=True)
class ChatOptions:
    """Engram's own per-request options (the ``x-engram-*`` headers)."""

    session_id: str | None = None
    scope: Scope = Scope.API_KEY
    opt_out: bool = False
    # None: the stored settings decide.
    strategy: Strategy | None = None
    injection_mode: InjectionMode | None = None
