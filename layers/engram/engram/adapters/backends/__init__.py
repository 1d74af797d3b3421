"""Remote memory backends (``ports.MemoryBackend``): a generic REST API, Obsidian's
Local REST API and Notion. libSQL, the default backend, is the engine's own
(``engram.backends.LibsqlBackend``)."""

from .factory import build_backend
from .http import HttpBackend
from .notion import NotionBackend
from .obsidian import ObsidianBackend

__all__ = ["HttpBackend", "NotionBackend", "ObsidianBackend", "build_backend"]
