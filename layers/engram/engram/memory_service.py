"""Memory operations on top of the repository: upsert keys, extraction, listing, stats."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime

from .extraction import extract_facts
from .models import (
    Memory,
    MemoryCreate,
    MemoryPage,
    MemoryQuery,
    MemoryStats,
    MemoryUpdate,
)
from .models.common import to_millis
from .storage.memories import MemoryRepository, UpsertOutcome

__all__ = ["MemoryService", "derive_key"]


def derive_key(content: str) -> str:
    """The upsert key of a memory given without one: identical content, one memory."""
    return "memory:" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]


class MemoryService:
    def __init__(self, repo: MemoryRepository, clock: Callable[[], datetime]) -> None:
        self.repo = repo
        self.clock = clock

    def _now(self) -> int:
        return to_millis(self.clock())

    def upsert(self, item: MemoryCreate) -> UpsertOutcome:
        return self.repo.upsert(item, item.key or derive_key(item.content), self._now())

    def create(self, item: MemoryCreate) -> Memory:
        return self.upsert(item).memory

    def upsert_many(self, items: list[MemoryCreate]) -> list[UpsertOutcome]:
        """All or nothing: one transaction for the batch."""
        now = self._now()
        with self.repo.db.transaction():
            return [self.repo.upsert(i, i.key or derive_key(i.content), now) for i in items]

    def get(self, memory_id: str, api_key_id: str | None = None) -> Memory | None:
        return self.repo.get(memory_id, api_key_id, self._now())

    def update(
        self, memory_id: str, changes: MemoryUpdate, api_key_id: str | None = None
    ) -> Memory | None:
        outcome = self.repo.update(memory_id, api_key_id, changes, self._now())
        return None if outcome is None else outcome[0]

    def delete(self, memory_id: str, api_key_id: str | None = None) -> bool:
        return self.repo.delete(memory_id, api_key_id)

    def list_page(self, query: MemoryQuery) -> MemoryPage:
        data, total, by_type = self.repo.list_page(query, self._now())
        return MemoryPage(
            data=data,
            total=total,
            page=query.effective_page,
            limit=query.limit,
            offset=query.effective_offset,
            by_type=by_type,
        )

    def stats(self, api_key_id: str | None = None) -> MemoryStats:
        total, tokens = self.repo.totals(api_key_id, self._now())
        retrievals, hits = self.repo.retrieval_counts(api_key_id)
        return MemoryStats(
            total=total,
            tokens_used=tokens,
            hit_rate=round(hits / retrievals, 4) if retrievals else 0.0,
            retrievals=retrievals,
        )

    def extract_and_store(
        self, api_key_id: str, text: str, session_id: str | None = None, source: str = "chat"
    ) -> list[UpsertOutcome]:
        """Extract facts from ``text`` and upsert them (idempotent: keys are stable)."""
        extracted_at = self.clock()
        items = [
            MemoryCreate(
                api_key_id=api_key_id,
                session_id=session_id,
                type=fact.type,
                key=fact.key,
                content=fact.content,
                metadata=fact.metadata(source, extracted_at),
            )
            for fact in extract_facts(text)
        ]
        return self.upsert_many(items) if items else []
