"""libSQL adapters: the connection, migrations, and one repository per table."""

from engram.adapters.libsql.apikeys import ApiKeyRepository
from engram.adapters.libsql.database import Database
from engram.adapters.libsql.extractor_usage import ExtractorUsageRepository
from engram.adapters.libsql.history import HistoryRepository
from engram.adapters.libsql.jobs import JobLedgerRepository
from engram.adapters.libsql.keyword_index import KeywordIndexCache
from engram.adapters.libsql.maintenance import MaintenanceRepository
from engram.adapters.libsql.memories import MemoryRepository
from engram.adapters.libsql.migrate import LibsqlStorageInfo, apply_migrations
from engram.adapters.libsql.search import SearchRepository
from engram.adapters.libsql.settings_documents import SettingsDocumentsRepository
from engram.adapters.libsql.stats import RetrievalStatsRepository
from engram.adapters.libsql.vector_index import IndexCache
from engram.adapters.libsql.vector_rows import VectorRowsRepository
from engram.adapters.libsql.vector_tier import LibsqlVectorTier

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
