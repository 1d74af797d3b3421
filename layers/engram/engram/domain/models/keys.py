"""API keys of the chat proxy. The secret is shown once, at creation, and never stored."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from engram.domain.models.common import ApiModel, KeyName, UtcDatetime

__all__ = [
    "ApiKey",
    "ApiKeyCreate",
    "ApiKeyCreated",
    "ApiKeyRecord",
    "ApiKeyTransfer",
    "ApiKeysRestored",
]


class ApiKeyCreate(ApiModel):
    model_config = ConfigDict(extra="forbid")

    name: KeyName = "default"


class ApiKey(ApiModel):
    id: str = Field(description="The key's id: it owns the memories made through it")
    name: str
    prefix: str = Field(description="The first characters of the secret, to recognise it")
    created_at: UtcDatetime
    last_used_at: UtcDatetime | None
    revoked_at: UtcDatetime | None


class ApiKeyCreated(ApiKey):
    secret: str = Field(description="Shown once; only its hash is stored")


class ApiKeyRecord(ApiKey):
    """A key as one instance hands it to another: the SHA-256 of its secret, never the
    secret. Secrets are 256 random bits, so the hash reveals nothing usable; with it the
    same secret keeps working on the new instance, and owns the same memories."""

    model_config = ConfigDict(extra="forbid")

    id: Annotated[
        str,
        Field(
            min_length=1,
            max_length=128,
            pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:@-]*$",
            description="The key's id: the memories it owns carry it as apiKeyId",
        ),
    ]
    name: KeyName
    prefix: Annotated[
        str,
        Field(
            pattern=r"^egm_[A-Za-z0-9_-]{0,8}$",
            description="The first characters of the secret, to recognise it",
        ),
    ]
    secret_hash: Annotated[
        str, Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the secret, hex")
    ]


class ApiKeyTransfer(ApiModel):
    """Every key of an instance (GET /api/keys/export), as POST /api/keys/import takes it."""

    model_config = ConfigDict(extra="forbid")

    # 1,000 records fit the 1 MiB body limit whatever their fields; more keys: in parts.
    keys: Annotated[list[ApiKeyRecord], Field(max_length=1000)]


class ApiKeysRestored(ApiModel):
    """What an import did with each key, by id."""

    created: list[str] = Field(description="Keys added: their secrets now work here")
    unchanged: list[str] = Field(description="Already here with the same secret")
    revoked: list[str] = Field(
        description="Already here with the same secret, and now revoked here too, as there"
    )
    conflicts: list[str] = Field(
        description="Left alone: the id is here with another secret, or the secret under another id"
    )
