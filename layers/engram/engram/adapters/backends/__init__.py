"""Remote memory backends (``ports.MemoryBackend``): a generic REST API, Obsidian's
Local REST API and Notion. libSQL, the default backend, is the engine's own
(``engram.app.routing.LibsqlBackend``)."""

from engram.adapters.backends.factory import build_backend
from engram.adapters.backends.http import HttpBackend
from engram.adapters.backends.notion import NotionBackend
from engram.adapters.backends.obsidian import ObsidianBackend

__all__ = ["HttpBackend", "NotionBackend", "ObsidianBackend", "build_backend"]
