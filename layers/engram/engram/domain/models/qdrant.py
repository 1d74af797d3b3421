"""Qdrant tier settings (stored in the database, namespace ``qdrant``) and its answers.

The API key is write-only: stored, used, never returned (responses carry
``hasApiKey``); an empty string removes it. With no ``host`` the tier runs
qdrant-client's embedded mode under the data directory (one process only: it
locks its folder), which is for local use and tests; production uses a server
(AWS Lambda refuses embedded mode: see ``QdrantService.refused``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, SecretStr, StrictBool

from engram.domain.errors import InvalidInputError
from engram.domain.models.common import JSON_INT, ApiModel, Credential, PartialUpdate
from engram.domain.models.hosts import HOST_PATTERN, MAX_HOST_CHARS
from engram.domain.urlpolicy import check_host

__all__ = [
    "MAX_TOP_K",
    "QdrantHealth",
    "QdrantHit",
    "QdrantSettings",
    "QdrantSettingsPublic",
    "QdrantSettingsUpdate",
    "Quantization",
]


def _host(value: str) -> str:
    try:
        return check_host(value)
    except InvalidInputError as exc:
        raise ValueError(exc.message) from None


Quantization = Literal["none", "int8", "binary"]
Host = Annotated[str, Field(max_length=MAX_HOST_CHARS, pattern=HOST_PATTERN), AfterValidator(_host)]
# SPEC: a Qdrant search returns at most 20 points.
MAX_TOP_K = 20


class QdrantSettings(ApiModel):
    model_config = ConfigDict(extra="ignore")

    enabled: StrictBool = False
    host: Annotated[str, Field(max_length=255)] = ""
    port: Annotated[int, Field(ge=1, le=65535)] = 6333
    https: StrictBool = False
    api_key: SecretStr | None = None
    collection: Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")] = (
        "engram_memory"
    )
    embedding_model: Annotated[str, Field(max_length=200)] | None = None
    quantization: Quantization = "none"
    timeout_ms: Annotated[int, Field(ge=100, le=60_000)] = 2000


class QdrantSettingsUpdate(PartialUpdate):
    """Fields to change; ``apiKey: ""`` removes the key."""

    model_config = ConfigDict(extra="forbid")

    enabled: StrictBool | None = None
    host: Host | None = None
    port: Annotated[int, Field(ge=1, le=65535), JSON_INT] | None = None
    https: StrictBool | None = None
    api_key: Credential | None = None
    collection: (
        Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")] | None
    ) = None
    embedding_model: Annotated[str, Field(max_length=200)] | None = None
    quantization: Quantization | None = None
    timeout_ms: Annotated[int, Field(ge=100, le=60_000), JSON_INT] | None = None


class QdrantSettingsPublic(ApiModel):
    enabled: bool
    host: str
    port: int
    https: bool
    has_api_key: bool
    collection: str
    embedding_model: str | None
    quantization: Quantization
    timeout_ms: int
    mode: Literal["embedded", "server"]

    @classmethod
    def of(cls, settings: QdrantSettings) -> QdrantSettingsPublic:
        data = settings.model_dump(by_alias=False, exclude={"api_key"})
        return cls(
            **data,
            has_api_key=settings.api_key is not None,
            mode="server" if settings.host else "embedded",
        )


@dataclass(frozen=True)
class QdrantHit:
    memory_id: str
    score: float
    payload: dict[str, Any]


class QdrantHealth(ApiModel):
    ok: bool
    latency_ms: float
    points: int | None = None
    dimension: int | None = None
    error: str | None = None
