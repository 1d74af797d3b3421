"""The backends as configured now: built from the stored settings by the
``BackendFactory`` port, kept while their configuration stands, rebuilt when it changes,
and shut down when replaced or closed. Which backend a call goes to is the manager's
policy (``manager.py``); this is only their lifecycle."""

from __future__ import annotations

import json
import logging
import threading

from engram.app.routing.libsql_backend import LIBSQL, LibsqlBackend
from engram.app.settings import SettingsStore
from engram.domain.errors import BackendError, EngramError, NotFoundError, log_safe
from engram.domain.models import MemorySettings
from engram.domain.models.backends import backend_kind
from engram.ports import BackendFactory, BackendLifecycle, MemoryBackend

__all__ = ["BackendRegistry"]

log = logging.getLogger(__name__)


class BackendRegistry:
    def __init__(
        self, settings: SettingsStore, local: LibsqlBackend, factory: BackendFactory
    ) -> None:
        self.settings = settings
        self.local = local
        self.factory = factory
        self._lock = threading.Lock()
        # name -> (the configuration it was built from, the backend)
        self._built: dict[str, tuple[str, MemoryBackend]] = {}

    def chain(self, settings: MemorySettings | None = None) -> list[str]:
        """The primary's name, then the fallbacks' in order."""
        settings = settings or self.settings.get()
        return [settings.primary_backend, *settings.fallback_backends]

    def backend(self, name: str, settings: MemorySettings | None = None) -> MemoryBackend:
        """The backend ``name`` as configured now; ``BackendError`` when it cannot be built."""
        if name == LIBSQL:
            return self.local
        settings = settings or self.settings.get()
        config = settings.backend_configs.get(name, {})
        if backend_kind(name, config) is None:
            raise NotFoundError(f"no backend named {name}", field="name")
        signature = json.dumps(config, sort_keys=True, default=str)
        with self._lock:
            built = self._built.get(name)
            if built is not None and built[0] == signature:
                return built[1]
            try:
                backend = self.factory(name, config)
            except EngramError as exc:
                raise BackendError(f"backend {name} is not usable: {exc.message}") from None
            if isinstance(backend, BackendLifecycle):
                backend.initialize()
            self._built[name] = (signature, backend)
        if built is not None:
            _shutdown(built[1])
        return backend

    def primary(self) -> MemoryBackend:
        return self.backend(self.settings.get().primary_backend)

    def close(self) -> None:
        with self._lock:
            built, self._built = list(self._built.values()), {}
        for _, backend in built:
            _shutdown(backend)


def _shutdown(backend: MemoryBackend) -> None:
    if isinstance(backend, BackendLifecycle):
        try:
            backend.shutdown()
        except Exception as exc:  # closing a client must not stop the rest closing
            log.warning("backend %s did not shut down: %s", backend.name, log_safe(exc))
