"""Summarization (SPEC section 7) and cleanup: keeping the active set small.

``summarize`` keeps the newest memories that fit a token budget and shortens the
rest to their first three sentences. ``summarize_older_than`` folds every memory
older than N days into summary memories, one typed line per memory, and deletes
the originals; its dry run reports and changes nothing. ``cleanup`` removes what
can never be returned again (expired rows, rows past retention) and bookkeeping
that has served its purpose; it counts before it deletes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .memories import MemoryService
from .models import (
    DAY_MS,
    MAX_CONTENT_CHARS,
    CleanupResult,
    MemoryCreate,
    MemoryType,
    MemoryUpdate,
    SummarizeRequest,
    SummarizeResult,
)
from .ports import MaintenanceStore, UnitOfWork
from .settings import SettingsStore
from .tokens import estimate_tokens

__all__ = ["Maintenance", "PointCleanup", "first_sentences"]

# (now_ms, retention cut-off ms, dry_run) -> points removed in a secondary vector store,
# or None when there is none (or it failed, which it logs).
PointCleanup = Callable[[int, int, bool], int | None]
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# Bookkeeping older than this is no longer needed: SQS keeps messages 14 days at most.
_BOOKKEEPING_MS = 15 * DAY_MS


def first_sentences(text: str, n: int = 3) -> str:
    parts = _SENTENCE_END.split(text.strip())
    return " ".join(parts[:n])


@dataclass
class _Row:
    id: str
    owner: str
    type: str
    content: str


class Maintenance:
    def __init__(
        self,
        store: MaintenanceStore,
        memories: MemoryService,
        settings: SettingsStore,
        uow: UnitOfWork,
        now_ms: Callable[[], int],
        *,
        point_cleanup: PointCleanup | None = None,
    ) -> None:
        self.store = store
        self.memories = memories
        self.settings = settings
        self.uow = uow
        self.now_ms = now_ms
        self.point_cleanup = point_cleanup

    # -- summarize ------------------------------------------------------------------

    def summarize(
        self, api_key_id: str, session_id: str | None = None, max_tokens: int = 4000
    ) -> int:
        """Shorten what does not fit ``max_tokens`` (newest kept whole); tokens saved."""
        used = saved = 0
        for memory_id, content in self.store.newest_first(api_key_id, session_id):
            tokens = estimate_tokens(content)
            if used + tokens <= max_tokens:
                used += tokens
                continue
            short = first_sentences(content)
            if short != content:
                self.memories.update(memory_id, MemoryUpdate(content=short), api_key_id)
                saved += tokens - estimate_tokens(short)
        return saved

    def summarize_older_than(self, request: SummarizeRequest) -> SummarizeResult:
        cutoff = self.now_ms() - request.older_than_days * DAY_MS
        rows = [
            _Row(m.id, m.api_key_id, m.type.value, m.content)
            for m in self.store.older_than(cutoff, request.api_key_id)
        ]
        by_owner: dict[str, list[_Row]] = {}
        for row in rows:
            by_owner.setdefault(row.owner, []).append(row)
        summaries = {owner: _summaries(owned) for owner, owned in by_owner.items()}
        before = sum(estimate_tokens(r.content) for r in rows)
        after = sum(estimate_tokens(s) for texts in summaries.values() for s in texts)
        written = 0
        if not request.dry_run and rows:
            stamp = self.now_ms()
            items = [
                MemoryCreate(
                    api_key_id=owner,
                    key=f"summary:{stamp}:{i}",
                    type=MemoryType.SEMANTIC,
                    content=text,
                    metadata={"category": "summary", "summarized": len(by_owner[owner])},
                )
                for owner, texts in summaries.items()
                for i, text in enumerate(texts)
            ]
            with self.uow.transaction():
                self.memories.upsert_many(items)
                for row in rows:
                    self.memories.delete(row.id, row.owner)
            written = len(items)
        return SummarizeResult(
            candidates=len(rows),
            tokens_saved=max(before - after, 0),
            summaries=written,
            dry_run=request.dry_run,
        )

    def auto_summarize(self) -> SummarizeResult | None:
        """The daily job: only when ``autoSummarize`` is on; folds what is older than
        half the retention, so facts are compacted before retention would drop them."""
        settings = self.settings.get()
        if not settings.auto_summarize:
            return None
        days = max(1, settings.retention_days // 2)
        return self.summarize_older_than(SummarizeRequest(older_than_days=days, dry_run=False))

    # -- cleanup --------------------------------------------------------------------

    def cleanup(self, dry_run: bool = False) -> CleanupResult:
        """Expired rows, rows past retention, and old bookkeeping; counted, then removed.

        Old tombstones: vector indexes catch up through them, and one older than the
        bookkeeping window only matters to an index idle for weeks, whose stale id is
        re-read with the owner condition in SQL and found missing. Vectors live in their
        rows, so there are no orphan vectors to look for.
        """
        now = self.now_ms()
        retention = now - self.settings.get().retention_days * DAY_MS
        old = now - _BOOKKEEPING_MS
        counts = self.store.cleanup_counts(now, retention, old)
        points = None if self.point_cleanup is None else self.point_cleanup(now, retention, dry_run)
        if not dry_run:
            for memory_id, owner in self.store.removable(now, retention):
                # One by one: each deletion leaves the tombstone the vector indexes need.
                self.memories.delete(memory_id, owner)
            self.store.purge_bookkeeping(old)
        return CleanupResult(**counts, qdrant_points=points, dry_run=dry_run)


def _summaries(rows: list[_Row]) -> list[str]:
    """One typed line per memory, packed into texts under the content size limit."""
    texts: list[str] = []
    current: list[str] = []
    size = 0
    for row in rows:
        line = f"{row.type}: {' '.join(row.content.split())}"
        if len(line) + 1 > MAX_CONTENT_CHARS:
            line = line[: MAX_CONTENT_CHARS - 4] + "..."
        length = len(line) + 1
        if current and size + length > MAX_CONTENT_CHARS:
            texts.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += length
    if current:
        texts.append("\n".join(current))
    return texts
