"""API keys of the chat proxy. The secret is shown once, at creation, and never stored."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from engram.domain.models.common import ApiModel, UtcDatetime

__all__ = ["ApiKey", "ApiKeyCreate", "ApiKeyCreated"]


class ApiKeyCreate(ApiModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(min_length=1, max_length=100)] = "default"


class ApiKey(ApiModel):
    id: str = Field(description="The key's id: it owns the memories made through it")
    name: str
    prefix: str = Field(description="The first characters of the secret, to recognise it")
    created_at: UtcDatetime
    last_used_at: UtcDatetime | None
    revoked_at: UtcDatetime | None


class ApiKeyCreated(ApiKey):
    secret: str = Field(description="Shown once; only its hash is stored")
