"""libSQL storage: the connection, migrations and repositories."""

from .apikeys import ApiKeyRepository
from .database import Database
from .memories import MemoryRepository, UpsertOutcome
from .migrate import apply_migrations
from .rows import OwnerFilter
from .search import SearchRepository, VectorMeta

__all__ = [
    "ApiKeyRepository",
    "Database",
    "MemoryRepository",
    "OwnerFilter",
    "SearchRepository",
    "UpsertOutcome",
    "VectorMeta",
    "apply_migrations",
]
