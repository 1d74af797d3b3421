"""Engram's engine: persistent memory for OpenAI-compatible chat applications.

Free of AWS and HTTP framework imports: handlers in ``functions/`` and the
glue in ``shared/`` adapt it to Lambda and FastAPI. The use cases depend on
``engram.ports``; ``engram.wiring`` is the one place that picks the adapters.
"""

from engram import _blas  # noqa: F401  (first: before anything loads numpy)
from engram.adapters.extraction import ExtractedFact, extract_facts
from engram.config import Config, load_config
from engram.domain.errors import (
    AuthenticationError,
    ConfigError,
    ConflictError,
    EmbeddingError,
    EngramError,
    InvalidInputError,
    MigrationError,
    NotFoundError,
    StorageError,
    TransientEmbeddingError,
    UnavailableError,
    UpstreamError,
    UpstreamTimeout,
)
from engram.domain.injection import format_memories, inject, provider_supports_system
from engram.domain.models import MemorySettings, MemorySettingsUpdate
from engram.domain.tokens import estimate_tokens
from engram.engine import Engine
from engram.wiring import build_engine, open_engine, reset_engines

__all__ = [
    "AuthenticationError",
    "Config",
    "ConfigError",
    "ConflictError",
    "EmbeddingError",
    "Engine",
    "EngramError",
    "ExtractedFact",
    "InvalidInputError",
    "MemorySettings",
    "MemorySettingsUpdate",
    "MigrationError",
    "NotFoundError",
    "StorageError",
    "TransientEmbeddingError",
    "UnavailableError",
    "UpstreamError",
    "UpstreamTimeout",
    "build_engine",
    "estimate_tokens",
    "extract_facts",
    "format_memories",
    "inject",
    "load_config",
    "open_engine",
    "provider_supports_system",
    "reset_engines",
]
