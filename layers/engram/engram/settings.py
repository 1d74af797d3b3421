"""Per-deployment memory settings, stored in the database and cached in process.

Values are normalised rather than rejected when they are merely out of range
(SPEC section 10): budgets and retention are clamped, the UI's ``recent``
strategy maps to ``exact`` and an unknown strategy to ``hybrid``. Wrong types
and unknown fields are rejected (``MemorySettingsUpdate`` forbids extras).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, Strict, ValidationError, field_validator

from .errors import InvalidInputError
from .models.common import ApiModel, Strategy
from .storage.database import Database
from .storage.settings_table import load_settings, save_settings

__all__ = ["MemorySettings", "MemorySettingsUpdate", "SettingsStore"]

MAX_TOKENS_LIMIT = 16_000
log = logging.getLogger(__name__)


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
        from .embeddings.urlpolicy import check_endpoint_url

        try:
            return check_endpoint_url(value)
        except InvalidInputError as exc:
            raise ValueError(exc.message) from exc


class SettingsStore:
    """Read-through cache over the ``settings`` table (namespace ``memory``)."""

    NAMESPACE = "memory"

    def __init__(
        self,
        db: Database,
        ttl_s: float = 5.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.ttl_s = ttl_s
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._cached: MemorySettings | None = None
        self._loaded_at = 0.0

    def get(self) -> MemorySettings:
        with self._lock:
            now = self._monotonic()
            if self._cached is None or now - self._loaded_at > self.ttl_s:
                self._cached = self._load()
                self._loaded_at = now
            return self._cached

    def update(self, changes: MemorySettingsUpdate, now_ms: int) -> MemorySettings:
        with self._lock, self.db.transaction():
            current = self._load()
            merged = {
                **current.model_dump(by_alias=False),
                **changes.model_dump(by_alias=False, exclude_unset=True),
            }
            try:
                updated = MemorySettings.model_validate(merged)
            except ValidationError as exc:
                raise InvalidInputError(str(exc)) from exc
            save_settings(self.db, self.NAMESPACE, updated.model_dump_json(by_alias=False), now_ms)
            self._cached = updated
            self._loaded_at = self._monotonic()
            return updated

    def invalidate(self) -> None:
        with self._lock:
            self._cached = None

    def _load(self) -> MemorySettings:
        raw = load_settings(self.db, self.NAMESPACE)
        if raw is None:
            return MemorySettings()
        try:
            return MemorySettings.model_validate(json.loads(raw))
        except (ValueError, ValidationError):
            # A hand-edited or future-format row must not take the service down.
            log.warning("stored memory settings are unreadable; using defaults")
            return MemorySettings()
