"""Which embedder to use, as SPEC section 6 resolves it.

``auto``: remote when one is configured with a key -> static when ``staticEnabled``
-> transformers when ``transformersEnabled`` -> none (keyword only). An explicit
source is used if it can be; otherwise retrieval degrades to keywords and says why.
Local models are loaded once per process and shared.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from pydantic import SecretStr

from ..config import Config
from ..errors import EmbeddingError, InvalidInputError
from ..settings import MemorySettings
from .assets import ASSETS, DEFAULT_DIR, missing_files
from .base import Embedder
from .cache import CachedEmbedder, RetryingEmbedder

__all__ = [
    "RemoteEndpoint",
    "Resolution",
    "assets_root",
    "local_status",
    "remote_endpoint",
    "remote_model",
    "resolve_embedder",
]

_loaded: dict[tuple[str, str], Embedder] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Resolution:
    embedder: CachedEmbedder | None
    reason: str | None = None


def assets_root(config: Config) -> Path:
    return config.static_cache_dir or DEFAULT_DIR


def local_status(config: Config, name: str) -> str | None:
    """None when the model's files are present, else why not."""
    missing = missing_files(ASSETS[name], assets_root(config))
    if missing:
        return f"model files missing ({', '.join(missing)}): run 'make install'"
    return None


def _local(config: Config, source: str) -> Embedder:
    name = "potion-base-8M" if source == "static" else "all-MiniLM-L6-v2"
    problem = local_status(config, name)
    if problem:
        raise EmbeddingError(problem)
    folder = assets_root(config) / name
    with _lock:
        embedder = _loaded.get((source, str(folder)))
        if embedder is None:
            if source == "static":
                from .static import StaticEmbedder

                embedder = StaticEmbedder(folder, config.static_model)
            else:
                from .onnx import TransformersEmbedder

                embedder = TransformersEmbedder(folder, config.transformers_model)
            _loaded[(source, str(folder))] = embedder
        return embedder


@dataclass(frozen=True)
class RemoteEndpoint:
    """Where remote calls go (embeddings, rerank) and the key they carry."""

    base_url: str
    api_key: SecretStr


def remote_endpoint(settings: MemorySettings, config: Config) -> RemoteEndpoint | None:
    """``customBaseUrl`` (else the upstream's) with the embedding key (else the upstream's)."""
    base = settings.custom_base_url or config.upstream_base_url
    key = config.embedding_api_key or config.upstream_api_key
    return RemoteEndpoint(base, key) if base and key else None


def remote_model(settings: MemorySettings) -> str | None:
    return settings.custom_model_id or settings.embedding_provider_model


def _remote(settings: MemorySettings, config: Config) -> Embedder | None:
    endpoint = remote_endpoint(settings, config)
    model = remote_model(settings)
    if endpoint is None or not model:
        return None
    from .remote import RemoteEmbedder

    try:
        return RemoteEmbedder(endpoint.base_url, model, endpoint.api_key.get_secret_value())
    except InvalidInputError as exc:
        raise EmbeddingError(exc.message) from exc


def _wrap(embedder: Embedder, config: Config) -> CachedEmbedder:
    return CachedEmbedder(
        RetryingEmbedder(embedder),
        max_entries=config.embedding_cache_max,
        ttl_s=config.embedding_cache_ttl_ms / 1000,
    )


def resolve_embedder(settings: MemorySettings, config: Config) -> Resolution:
    source = settings.embedding_source
    tried: list[str] = []
    if source in ("remote", "auto"):
        try:
            remote = _remote(settings, config)
        except EmbeddingError as exc:
            remote = None
            tried.append(f"remote: {exc.message}")
        if remote is not None:
            return Resolution(_wrap(remote, config))
        if source == "remote":
            tried.append("remote: no endpoint, model and key configured")
    for local, enabled in (
        ("static", settings.static_enabled),
        ("transformers", settings.transformers_enabled),
    ):
        if source == local or (source == "auto" and enabled):
            try:
                return Resolution(_wrap(_local(config, local), config))
            except EmbeddingError as exc:
                tried.append(f"{local}: {exc.message}")
    if not tried:
        tried.append("no embedding source is enabled")
    return Resolution(None, "; ".join(tried))
