"""libSQL storage: the connection, migrations and repositories."""

from .apikeys import ApiKeyRepository
from .database import Database
from .memories import MemoryRepository, OwnerFilter
from .migrate import apply_migrations

__all__ = ["ApiKeyRepository", "Database", "MemoryRepository", "OwnerFilter", "apply_migrations"]
