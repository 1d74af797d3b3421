"""Builds a remote memory backend from its stored configuration (``ports.BackendFactory``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engram.adapters.backends.http import HttpBackend
from engram.adapters.backends.notion import NotionBackend
from engram.adapters.backends.obsidian import ObsidianBackend
from engram.domain.errors import BackendError
from engram.domain.models.backends import (
    HttpBackendConfig,
    NotionBackendConfig,
    ObsidianBackendConfig,
    parse_backend_config,
)
from engram.ports import MemoryBackend

__all__ = ["build_backend"]


def build_backend(name: str, config: Mapping[str, Any]) -> MemoryBackend:
    """The backend ``name`` as its stored configuration describes it
    (``ports.BackendFactory``). ``InvalidInputError`` for a configuration that does not
    parse, ``BackendError`` for one this process cannot use."""
    parsed = parse_backend_config(name, config)
    if isinstance(parsed, HttpBackendConfig):
        return HttpBackend(name, parsed)
    if isinstance(parsed, ObsidianBackendConfig):
        return ObsidianBackend(name, parsed)
    if isinstance(parsed, NotionBackendConfig):
        return NotionBackend(name, parsed)
    raise BackendError(f"backend {name} has an unknown kind")  # pragma: no cover
