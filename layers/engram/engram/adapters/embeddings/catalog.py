"""Which embedder the settings select, as SPEC section 6 resolves it (the
``EmbedderCatalog`` port).

The stored settings alone choose the source (``MemorySettings.chosen_embedding_source``):
``auto`` is remote when a remote model is named (``customModelId``) -> static when
``staticEnabled`` -> transformers when ``transformersEnabled`` -> none (keyword only).
This catalog then builds that source's embedder or reports why it cannot; it never
falls back to another source. What a source needs from the process (the key, the
upstream URL, the model files) differs between functions of one deployment, and an
embedder chosen by what one process happens to hold would make processes disagree:
each would reset the stored vectors to its own signature, over and over.
Local models are loaded once per process and shared; ``MEMORY_STATIC_MODEL`` and
``MEMORY_TRANSFORMERS_MODEL`` name which model files are loaded.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from pydantic import SecretStr

from engram.adapters.embeddings.assets import (
    ASSETS,
    DEFAULT_DIR,
    STATIC_MODEL,
    TRANSFORMERS_MODEL,
    missing_files,
)
from engram.adapters.embeddings.cache import CachedEmbedder, RetryingEmbedder
from engram.domain.errors import EmbeddingError, InvalidInputError
from engram.domain.models import EmbeddingProvider, MemorySettings
from engram.domain.urlpolicy import same_origin
from engram.ports import Embedder, EmbedderChoice

__all__ = [
    "LOCAL_MODELS",
    "LocalCatalog",
    "RemoteEndpoint",
    "RemoteKeys",
    "remote_endpoint",
    "remote_model",
]

# The local models each source can load, by the name their settings give.
LOCAL_MODELS = {"static": (STATIC_MODEL,), "transformers": (TRANSFORMERS_MODEL,)}
_DIMENSIONS = {STATIC_MODEL: 256, TRANSFORMERS_MODEL: 384}
_loaded: dict[tuple[str, str], Embedder] = {}
_REMOTE_NEEDS = (
    "needs customBaseUrl (or the upstream URL), customModelId and an API key"
    " (ENGRAM_EMBEDDING_API_KEY for an endpoint other than the upstream's)"
)
_lock = threading.Lock()


@dataclass(frozen=True)
class RemoteEndpoint:
    """Where remote calls go (embeddings, rerank) and the key they carry."""

    base_url: str
    api_key: SecretStr


@dataclass(frozen=True)
class RemoteKeys:
    """The deployment's credentials for remote calls, and where each may go.

    The embedding key (``ENGRAM_EMBEDDING_API_KEY``) goes to whatever endpoint the
    settings name. The upstream's key goes only to the upstream's own origin: settings
    are changed through the management API, and a ``customBaseUrl`` pointing elsewhere
    must not receive the provider's key.
    """

    upstream_url: str | None = None
    upstream_key: SecretStr | None = None
    embedding_key: SecretStr | None = None


def remote_endpoint(settings: MemorySettings, keys: RemoteKeys) -> RemoteEndpoint | None:
    """``customBaseUrl`` (else the upstream's URL) with a key allowed to go there."""
    base = settings.custom_base_url or keys.upstream_url
    if not base:
        return None
    if keys.embedding_key is not None:
        return RemoteEndpoint(base, keys.embedding_key)
    if keys.upstream_key is not None and same_origin(base, keys.upstream_url):
        return RemoteEndpoint(base, keys.upstream_key)
    return None


def _remote_missing(settings: MemorySettings, keys: RemoteKeys) -> str:
    """What this process lacks for the remote embedder (safe to show: no secrets)."""
    if not remote_model(settings):
        return "no customModelId"
    if not (settings.custom_base_url or keys.upstream_url):
        return "no customBaseUrl, and this process has no upstream URL (ENGRAM_UPSTREAM_BASE_URL)"
    if keys.embedding_key is None and keys.upstream_key is not None:
        return (
            "the upstream key only goes to the upstream's origin:"
            " this process needs ENGRAM_EMBEDDING_API_KEY for customBaseUrl"
        )
    return (
        "this process has no API key for the embedding endpoint"
        " (ENGRAM_EMBEDDING_API_KEY, or ENGRAM_UPSTREAM_API_KEY for the upstream's origin)"
    )


def remote_model(settings: MemorySettings) -> str | None:
    return settings.remote_embedding_model


@dataclass(frozen=True)
class LocalCatalog:
    """Embedders of this deployment: the local models under ``assets_root``, and a remote
    endpoint when one is configured. Every embedder is wrapped in the retry policy and
    an LRU + TTL cache."""

    assets_root: Path = DEFAULT_DIR
    static_model: str = STATIC_MODEL
    transformers_model: str = TRANSFORMERS_MODEL
    remote: RemoteKeys = RemoteKeys()
    cache_max: int = 1000
    cache_ttl_s: float = 300.0

    def _model(self, source: str) -> str:
        return self.static_model if source == "static" else self.transformers_model

    def local_problem(self, source: str) -> str | None:
        """None when the source's model can be loaded, else why not."""
        name = self._model(source)
        if name not in LOCAL_MODELS[source]:
            known = ", ".join(LOCAL_MODELS[source])
            return f"unknown {source} model {name!r} (available offline: {known})"
        missing = missing_files(ASSETS[name], self.assets_root)
        if missing:
            return f"model files missing ({', '.join(missing)}): run 'make install'"
        return None

    def _local(self, source: str) -> Embedder:
        problem = self.local_problem(source)
        if problem:
            raise EmbeddingError(problem)
        name = self._model(source)
        folder = self.assets_root / name
        with _lock:
            embedder = _loaded.get((source, str(folder)))
            if embedder is None:
                if source == "static":
                    from engram.adapters.embeddings.static import StaticEmbedder

                    embedder = StaticEmbedder(folder, name)
                else:
                    from engram.adapters.embeddings.onnx import TransformersEmbedder

                    embedder = TransformersEmbedder(folder, name)
                _loaded[(source, str(folder))] = embedder
            return embedder

    def _remote(self, settings: MemorySettings) -> Embedder | None:
        endpoint = remote_endpoint(settings, self.remote)
        model = remote_model(settings)
        if endpoint is None or not model:
            return None
        from engram.adapters.embeddings.remote import RemoteEmbedder

        try:
            return RemoteEmbedder(endpoint.base_url, model, endpoint.api_key.get_secret_value())
        except InvalidInputError as exc:
            raise EmbeddingError(exc.message) from exc

    def _wrap(self, embedder: Embedder) -> CachedEmbedder:
        return CachedEmbedder(
            RetryingEmbedder(embedder), max_entries=self.cache_max, ttl_s=self.cache_ttl_s
        )

    def resolve(self, settings: MemorySettings) -> EmbedderChoice:
        source = settings.chosen_embedding_source()
        if source is None:
            return EmbedderChoice(None, "no embedding source is enabled")
        try:
            if source == "remote":
                remote = self._remote(settings)
                if remote is None:
                    missing = _remote_missing(settings, self.remote)
                    return EmbedderChoice(None, f"remote: {missing}", source)
                return EmbedderChoice(self._wrap(remote), source=source)
            return EmbedderChoice(self._wrap(self._local(source)), source=source)
        except EmbeddingError as exc:
            return EmbedderChoice(None, f"{source}: {exc.message}", source)

    def providers(self, settings: MemorySettings) -> list[EmbeddingProvider]:
        """Every embedding source and whether it can be used now."""
        endpoint = remote_endpoint(settings, self.remote)
        remote_ready = endpoint is not None and bool(remote_model(settings))
        found = [
            EmbeddingProvider(
                source="remote",
                model=remote_model(settings),
                dimension=None,
                available=remote_ready,
                reason=None if remote_ready else _REMOTE_NEEDS,
            )
        ]
        for source in ("static", "transformers"):
            problem = self.local_problem(source)
            model = self._model(source)
            found.append(
                EmbeddingProvider(
                    source=source,
                    model=model,
                    dimension=_DIMENSIONS.get(model),
                    available=problem is None,
                    reason=problem,
                )
            )
        return found
