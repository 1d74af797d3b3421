"""Per-deployment settings documents: the memory settings (cached in process) and the
Qdrant tier's.

Writes through this process refresh the cache at once; another process (another
Lambda instance) sees them within ``ttl_s``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable

from pydantic import ValidationError

from engram.domain.errors import InvalidInputError
from engram.domain.models import (
    MemorySettings,
    MemorySettingsUpdate,
    QdrantSettings,
    QdrantSettingsUpdate,
)
from engram.domain.models.backends import check_backends
from engram.domain.models.settings import merge_backend_configs
from engram.ports import SettingsDocuments, UnitOfWork

# Changing any of these checks the backends again (names, chain, required fields).
_BACKEND_FIELDS = {"primary_backend", "fallback_backends", "backend_configs"}

__all__ = ["QdrantSettingsStore", "SettingsStore"]

log = logging.getLogger(__name__)


class SettingsStore:
    """Read-through cache over the ``memory`` settings document."""

    NAMESPACE = "memory"

    def __init__(
        self,
        documents: SettingsDocuments,
        uow: UnitOfWork,
        now_ms: Callable[[], int],
        ttl_s: float = 5.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.documents = documents
        self.uow = uow
        self.now_ms = now_ms
        self.ttl_s = ttl_s
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._cached: MemorySettings | None = None
        self._loaded_at = 0.0
        self._generation = 0  # bumped by every write, so a load begun before it is not cached

    def get(self) -> MemorySettings:
        # The lock guards the cache only, never storage I/O: a thread inside a
        # transaction (holding the connection) may call get() while another waits on
        # the connection, and a lock held across the load would deadlock the two.
        with self._lock:
            if self._cached is not None and self._monotonic() - self._loaded_at <= self.ttl_s:
                return self._cached
            generation = self._generation
        loaded = self._load()
        with self._lock:
            if self._generation == generation:  # no write landed while this one loaded
                self._cached = loaded
                self._loaded_at = self._monotonic()
        return loaded

    def update(self, changes: MemorySettingsUpdate) -> MemorySettings:
        # The transaction alone serialises writers (in this process and across them).
        with self.uow.transaction():
            current = self._load()
            sent = changes.model_dump(by_alias=False, exclude_unset=True)
            if "backend_configs" in sent:
                sent["backend_configs"] = merge_backend_configs(
                    current.backend_configs, sent["backend_configs"]
                )
            merged = {**current.model_dump(by_alias=False), **sent}
            try:
                updated = MemorySettings.model_validate(merged)
            except ValidationError as exc:
                raise InvalidInputError(str(exc)) from exc
            if updated.extractor != "rules" and not updated.extractor_model:
                raise InvalidInputError(
                    f"extractorModel is required when extractor is {updated.extractor}",
                    field="extractorModel",
                )
            if sent.keys() & _BACKEND_FIELDS:
                check_backends(
                    updated.primary_backend, updated.fallback_backends, updated.backend_configs
                )
            self.documents.save(
                self.NAMESPACE, updated.model_dump_json(by_alias=False), self.now_ms()
            )
            # Dropped, not replaced: an enclosing transaction may still roll this back.
            self.invalidate()
        # Again once committed: against a server, a get() during the COMMIT round trip
        # read the old row after the first drop and may have cached it.
        self.invalidate()
        return updated

    def reseal(self, namespaces: tuple[str, ...] = (NAMESPACE, "qdrant")) -> list[str]:
        """Each stored settings document written again as it reads: its credentials
        sealed with the newest key (after a rotation). The namespaces rewritten."""
        rewritten = []
        with self.uow.transaction():
            for namespace in namespaces:
                raw = self.documents.load(namespace)
                if raw is not None:
                    self.documents.save(namespace, raw, self.now_ms())
                    rewritten.append(namespace)
        self.invalidate()
        return rewritten

    def invalidate(self) -> None:
        with self._lock:
            self._cached = None
            self._generation += 1

    def _load(self) -> MemorySettings:
        raw = self.documents.load(self.NAMESPACE)
        if raw is None:
            return MemorySettings()
        try:
            return MemorySettings.model_validate(json.loads(raw))
        except (ValueError, ValidationError):
            # A hand-edited or future-format row must not take the service down.
            log.warning("stored memory settings are unreadable; using defaults")
            return MemorySettings()


class QdrantSettingsStore:
    """The ``qdrant`` settings document; the API key is kept, never returned."""

    NAMESPACE = "qdrant"

    def __init__(
        self, documents: SettingsDocuments, uow: UnitOfWork, now_ms: Callable[[], int]
    ) -> None:
        self.documents = documents
        self.uow = uow
        self.now_ms = now_ms

    def get(self) -> QdrantSettings:
        raw = self.documents.load(self.NAMESPACE)
        if raw is None:
            return QdrantSettings()
        return QdrantSettings.model_validate(json.loads(raw))

    def update(self, changes: QdrantSettingsUpdate) -> QdrantSettings:
        with self.uow.transaction():  # serialises writers; no lock of ours around it
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
            self.documents.save(self.NAMESPACE, json.dumps(merged), self.now_ms())
            return updated
