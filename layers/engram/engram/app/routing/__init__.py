"""Where memories live: libSQL, the default, as a ``MemoryBackend``; the manager that
routes to a primary and a fallback chain (the rules settings keep:
``models.backends.check_backends``); the gateway every edge reaches memory through.
Remote backends are adapters (``engram.adapters.backends``), built through the
``BackendFactory`` port."""

from engram.app.routing.gateway import WHERE, MemoryGateway
from engram.app.routing.libsql_backend import LIBSQL, LibsqlBackend
from engram.app.routing.manager import BackendManager
from engram.app.routing.registry import BackendRegistry

__all__ = [
    "LIBSQL",
    "WHERE",
    "BackendManager",
    "BackendRegistry",
    "LibsqlBackend",
    "MemoryGateway",
]
