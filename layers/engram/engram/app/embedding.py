"""The embedder the current settings select (SPEC section 6), resolved again only when
the settings that choose it change.

The stored settings are the one source of truth: every process of a deployment
chooses the same source from them (``MemorySettings.chosen_embedding_source``), and
a process that cannot build it (no key, no endpoint, no model files) gets no embedder
and the reason, never another source's embedder (see ``engram.app.vectors``)."""

from __future__ import annotations

import threading
from typing import Any

from engram.app.settings import SettingsStore
from engram.domain.errors import ConflictError
from engram.domain.models import EmbeddingProvider, Removed
from engram.ports import EmbedderCatalog, EmbedderChoice, EmbeddingCache, Vectors

__all__ = ["ActiveEmbedder"]


class ActiveEmbedder:
    """The embedder the current settings select, resolved again only when they change."""

    def __init__(self, settings: SettingsStore, catalog: EmbedderCatalog) -> None:
        self.settings = settings
        self.catalog = catalog
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._choice = EmbedderChoice(None, "not resolved yet")

    def current(self, *, fresh: bool = False) -> EmbedderChoice:
        """The choice for the settings as cached; ``fresh`` reads them from storage first
        (before anything as drastic as resetting every stored vector)."""
        if fresh:
            self.settings.invalidate()
        s = self.settings.get()
        key = (
            s.embedding_source,
            s.static_enabled,
            s.transformers_enabled,
            s.custom_base_url,
            s.custom_model_id,
            s.embedding_provider_model,
        )
        with self._lock:
            if key != self._key:
                self._choice, self._key = self.catalog.resolve(s), key
            return self._choice

    def forget(self, removed: Removed) -> None:
        """Drop the cached vectors of memories that left (deleted, forgotten, retired)."""
        embedder = self._choice.embedder
        if isinstance(embedder, EmbeddingCache):
            embedder.forget(removed.contents)

    def providers(self) -> list[EmbeddingProvider]:
        return self.catalog.providers(self.settings.get())

    def embed_query(self, text: str) -> Vectors:
        """``text`` embedded as retrieval would.

        Without an embedder this is a ``ConflictError`` (409), not a 503: the stored
        settings chose a source this process cannot build, and changing them (another
        ``embeddingSource``) is how the caller fixes it."""
        choice = self.current()
        if choice.embedder is None:
            raise ConflictError(
                f"the settings choose an embedder this process cannot build: {choice.reason}"
            )
        vector: Vectors = choice.embedder.embed([text])[0]
        return vector
