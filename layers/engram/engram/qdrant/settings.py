"""Qdrant tier settings, stored in the database (namespace ``qdrant``).

The API key is write-only: stored, used, never returned (responses carry
``hasApiKey``); an empty string removes it. With no ``host`` the tier runs
qdrant-client's embedded mode under the data directory (one process only: it
locks its folder), which is for local use and tests; production uses a server.
"""

from __future__ import annotations

import json
import threading
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, SecretStr, ValidationError

from ..errors import InvalidInputError
from ..models.common import ApiModel
from ..storage.database import Database
from ..storage.settings_table import load_settings, save_settings

__all__ = ["QdrantSettings", "QdrantSettingsPublic", "QdrantSettingsStore", "QdrantSettingsUpdate"]

Quantization = Literal["none", "int8", "binary"]


class QdrantSettings(ApiModel):
    model_config = ConfigDict(extra="ignore")

    enabled: bool = False
    host: Annotated[str, Field(max_length=255)] = ""
    port: Annotated[int, Field(ge=1, le=65535)] = 6333
    https: bool = False
    api_key: SecretStr | None = None
    collection: Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")] = (
        "engram_memory"
    )
    embedding_model: Annotated[str, Field(max_length=200)] | None = None
    quantization: Quantization = "none"
    timeout_ms: Annotated[int, Field(ge=100, le=60_000)] = 2000


class QdrantSettingsUpdate(ApiModel):
    """Fields to change; ``apiKey: ""`` removes the key."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool | None = None
    host: Annotated[str, Field(max_length=255)] | None = None
    port: Annotated[int, Field(ge=1, le=65535)] | None = None
    https: bool | None = None
    api_key: Annotated[str, Field(max_length=500)] | None = None
    collection: (
        Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")] | None
    ) = None
    embedding_model: Annotated[str, Field(max_length=200)] | None = None
    quantization: Quantization | None = None
    timeout_ms: Annotated[int, Field(ge=100, le=60_000)] | None = None


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


class QdrantSettingsStore:
    NAMESPACE = "qdrant"

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.Lock()

    def get(self) -> QdrantSettings:
        raw = load_settings(self.db, self.NAMESPACE)
        if raw is None:
            return QdrantSettings()
        data = json.loads(raw)
        return QdrantSettings.model_validate(data)

    def update(self, changes: QdrantSettingsUpdate, now_ms: int) -> QdrantSettings:
        with self._lock, self.db.transaction():
            current = self.get()
            merged = current.model_dump(by_alias=False)
            merged["api_key"] = current.api_key.get_secret_value() if current.api_key else None
            for name, value in changes.model_dump(by_alias=False, exclude_unset=True).items():
                merged[name] = value
            if merged.get("api_key") == "":
                merged["api_key"] = None
            try:
                updated = QdrantSettings.model_validate(merged)
            except ValidationError as exc:
                raise InvalidInputError(str(exc)) from exc
            save_settings(self.db, self.NAMESPACE, json.dumps(merged), now_ms)
            return updated
