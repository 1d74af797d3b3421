"""Memory backends (SPEC section 8): libSQL, the default, as a ``MemoryBackend``; the
manager that routes to a primary and a fallback chain (the rules settings keep:
``models.backends.check_backends``).
Remote backends are adapters (``engram.adapters.backends``), built through the
``BackendFactory`` port."""

from .libsql import LIBSQL, LibsqlBackend
from .manager import BackendManager

__all__ = ["LIBSQL", "BackendManager", "LibsqlBackend"]
