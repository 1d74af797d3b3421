"""Stored per-deployment memory settings (SPEC section 10), as a model.

Values are normalised rather than rejected when they are merely out of range:
budgets and retention are clamped, the UI's ``recent`` strategy maps to
``exact`` and an unknown strategy to ``hybrid``. Wrong types and unknown fields
are rejected (``MemorySettingsUpdate`` forbids extras).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, Strict, field_validator

from ..errors import InvalidInputError
from ..urlpolicy import check_endpoint_url
from .common import ApiModel, Strategy

__all__ = ["MAX_TOKENS_LIMIT", "MemorySettings", "MemorySettingsUpdate"]

MAX_TOKENS_LIMIT = 16_000


def _clamp(low: int, high: int) -> Callable[[Any], Any]:
    def clamp(value: Any) -> Any:
        if isinstance(value, bool):
            return value  # the strict int validator rejects it
        if isinstance(value, int | float) and value == value:  # not NaN
            return max(low, min(high, int(value)))
        return value

    return clamp


def _strategy(value: Any) -> Any:
    if isinstance(value, str):
        value = value.strip().lower()
        if value == "recent":
            return Strategy.EXACT
        return value if value in {s.value for s in Strategy} else Strategy.HYBRID
    return value


def _vector_store(value: Any) -> Any:
    # The reference calls its embedded store "sqlite-vec"; ours is libSQL's native vectors.
    return "libsql" if value == "sqlite-vec" else value


def _backend(value: Any) -> Any:
    return "libsql" if value == "sqlite" else value


OptionalText = Annotated[str, Field(max_length=2048)] | None


class MemorySettings(ApiModel):
    model_config = ConfigDict(extra="ignore")

    enabled: bool = False
    max_tokens: Annotated[int, Strict(), BeforeValidator(_clamp(0, MAX_TOKENS_LIMIT))] = 2000
    retention_days: Annotated[int, Strict(), BeforeValidator(_clamp(1, 365))] = 30
    strategy: Annotated[Strategy, BeforeValidator(_strategy)] = Strategy.HYBRID
    # How hybrid combines keyword and vector evidence (engram/fusion.py).
    fusion: Literal["weighted", "rrf"] = "weighted"
    auto_summarize: bool = False
    embedding_source: Literal["auto", "remote", "static", "transformers"] = "auto"
    embedding_provider_model: OptionalText = None
    custom_base_url: OptionalText = None
    custom_model_id: OptionalText = None
    transformers_enabled: bool = False
    # On by default, unlike the reference: the static model is local, free and fast,
    # so hybrid retrieval works out of the box.
    static_enabled: bool = True
    rerank_enabled: bool = False
    rerank_provider_model: OptionalText = None
    vector_store: Annotated[Literal["auto", "libsql", "qdrant"], BeforeValidator(_vector_store)] = (
        "auto"
    )
    primary_backend: Annotated[str, BeforeValidator(_backend), Field(max_length=64)] = "libsql"
    fallback_backends: Annotated[list[str], Field(max_length=8)] = Field(default_factory=list)
    backend_configs: dict[str, dict[str, Any]] = Field(default_factory=dict)


class MemorySettingsUpdate(MemorySettings):
    """A partial update: only the fields sent change; unknown fields are an error."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("custom_base_url")
    @classmethod
    def _safe_url(cls, value: str | None) -> str | None:
        # Checked on the way in (http(s), no credentials, no query, no metadata host),
        # and again, with DNS, before the remote embedder calls it.
        if value is None or not value.strip():
            return None
        try:
            return check_endpoint_url(value)
        except InvalidInputError as exc:
            raise ValueError(exc.message) from exc
