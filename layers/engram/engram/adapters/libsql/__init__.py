"""libSQL adapters: the connection, migrations, and one repository per table."""

from .apikeys import ApiKeyRepository
from .database import Database
from .history import HistoryRepository
from .jobs import JobLedgerRepository
from .keyword_index import KeywordIndexCache
from .maintenance import MaintenanceRepository
from .memories import MemoryRepository
from .migrate import LibsqlStorageInfo, apply_migrations
from .search import SearchRepository
from .settings_documents import SettingsDocumentsRepository
from .stats import RetrievalStatsRepository
from .usage import ExtractorUsageRepository
from .vector_index import IndexCache
from .vector_rows import VectorRowsRepository
from .vector_tier import LibsqlVectorTier

__all__ = [
    "ApiKeyRepository",
    "Database",
    "ExtractorUsageRepository",
    "HistoryRepository",
    "IndexCache",
    "JobLedgerRepository",
    "KeywordIndexCache",
    "LibsqlStorageInfo",
    "LibsqlVectorTier",
    "MaintenanceRepository",
    "MemoryRepository",
    "RetrievalStatsRepository",
    "SearchRepository",
    "SettingsDocumentsRepository",
    "VectorRowsRepository",
    "apply_migrations",
]
