"""The engine facade: one object wiring storage, settings, retrieval and keys."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from .apikeys import ApiKeyService
from .config import Config
from .injection import inject
from .memory_service import MemoryService
from .models import Memory, RetrievalRequest, RetrievalResult
from .models.common import to_millis
from .ports import VectorTier
from .retrieval import Retriever
from .settings import SettingsStore
from .storage import ApiKeyRepository, Database, MemoryRepository

__all__ = ["Engine", "utc_now"]


def utc_now() -> datetime:
    return datetime.now(UTC)


class Engine:
    """Everything Engram does, behind one object; built by :func:`engram.build_engine`."""

    def __init__(
        self,
        db: Database,
        config: Config,
        *,
        clock: Callable[[], datetime] = utc_now,
        vector_tier: Callable[[], VectorTier | None] = lambda: None,
    ) -> None:
        self.db = db
        self.config = config
        self.clock = clock
        repo = MemoryRepository(db)
        self.settings = SettingsStore(db, ttl_s=config.settings_cache_ttl_s)
        self.memories = MemoryService(repo, clock)
        self.keys = ApiKeyService(ApiKeyRepository(db), clock)
        self.retriever = Retriever(
            repo,
            self.settings,
            lambda: to_millis(self.clock()),
            rrf_k=config.rrf_k,
            vec_top_k=config.vec_top_k,
            vector_tier=vector_tier,
        )

    def retrieve(
        self, api_key_id: str, request: RetrievalRequest, *, record: bool = True
    ) -> RetrievalResult:
        return self.retriever.retrieve(api_key_id, request, record=record)

    @staticmethod
    def inject(
        request: Mapping[str, Any],
        memories: Sequence[Memory],
        provider: str | None,
        *,
        cache_safe: bool = False,
    ) -> dict[str, Any]:
        return inject(request, memories, provider, cache_safe=cache_safe)

    def keyword_tier_available(self) -> bool:
        return self.db.table_exists("memory_fts")

    def close(self) -> None:
        self.db.close()
