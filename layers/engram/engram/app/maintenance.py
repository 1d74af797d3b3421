"""Summarization (SPEC section 7) and cleanup: keeping the active set small.

Both summarization modes compact the same way (``compaction.compact``): memories
grouped by category and subject, superseded facts and duplicates dropped, each kept
fact shortened, the group written as summary memories that carry the time range of
what they replace and replace them (the originals are deleted). ``summarize`` folds
what does not fit a token budget (the newest memories that fit stay whole);
``summarize_older_than`` folds what was last written more than N days ago. Neither
touches what retention already hides: a summary is stamped with its originals'
times, never "now", so nothing past ``retentionDays`` becomes retrievable again, and
retention hides a summary when it would hide its newest original. Dry runs list the
candidates and the summaries they would write, and change nothing. ``cleanup``
removes what can never be returned again (expired rows, rows past retention) and
bookkeeping that has served its purpose; it counts before it deletes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engram.app.memories import MemoryService
from engram.app.settings import SettingsStore
from engram.domain.compaction import compact, first_sentences, is_summary
from engram.domain.models import (
    DAY_MS,
    GLOBAL_OWNER,
    CleanupResult,
    Memory,
    MemoryCreate,
    MemoryImport,
    SummarizeRequest,
    SummarizeResult,
)
from engram.domain.models.common import to_millis
from engram.domain.tokens import estimate_tokens
from engram.ports import MaintenanceStore

__all__ = ["Maintenance", "PointCleanup", "first_sentences"]

# (now_ms, retention cut-off ms, dry_run) -> points removed in a secondary vector store,
# or None when there is none (or it failed, which it logs).
PointCleanup = Callable[[int, int, bool], int | None]
# Bookkeeping older than this is no longer needed: SQS keeps messages 14 days at most.
_BOOKKEEPING_MS = 15 * DAY_MS


class Maintenance:
    def __init__(
        self,
        store: MaintenanceStore,
        memories: MemoryService,
        settings: SettingsStore,
        now_ms: Callable[[], int],
        *,
        point_cleanup: PointCleanup | None = None,
    ) -> None:
        self.store = store
        self.memories = memories
        self.settings = settings
        self.now_ms = now_ms
        self.point_cleanup = point_cleanup

    # -- summarize ------------------------------------------------------------------

    def summarize(
        self,
        api_key_id: str,
        session_id: str | None = None,
        max_tokens: int = 4000,
        *,
        dry_run: bool = False,
    ) -> SummarizeResult:
        """Keep the newest memories that fit ``max_tokens`` whole; fold the rest into
        summaries (existing summaries count towards the budget, and stay as they are)."""
        now = self.now_ms()
        live, past = self._split(self.store.newest_first(api_key_id, session_id), now)
        used = 0
        rest: list[Memory] = []
        for memory in live:
            tokens = estimate_tokens(memory.content)
            if used + tokens <= max_tokens:
                used += tokens
            elif not is_summary(memory):
                rest.append(memory)
        return self._fold(rest, past, dry_run)

    def summarize_older_than(self, request: SummarizeRequest) -> SummarizeResult:
        """Fold the memories last written more than ``olderThanDays`` ago."""
        now = self.now_ms()
        cutoff = now - request.older_than_days * DAY_MS
        live, past = self._split(self.store.older_than(cutoff, request.api_key_id), now)
        return self._fold(live, past, request.dry_run)

    def _split(self, memories: Sequence[Memory], now: int) -> tuple[list[Memory], int]:
        """The live memories retention still shows, and how many it already hides (left
        to the cleanup schedule: summarizing them would bring them back)."""
        retention = now - self.settings.get().retention_days * DAY_MS
        live: list[Memory] = []
        past = 0
        for memory in memories:
            if memory.expires_at is not None and to_millis(memory.expires_at) <= now:
                continue
            if memory.api_key_id != GLOBAL_OWNER and to_millis(memory.updated_at) < retention:
                past += 1
                continue
            live.append(memory)
        return live, past

    def _fold(self, memories: list[Memory], past: int, dry_run: bool) -> SummarizeResult:
        plan = compact(memories)
        if not dry_run and plan.summaries:
            items: list[MemoryCreate] = [
                MemoryImport(
                    api_key_id=draft.api_key_id,
                    session_id=draft.session_id,
                    type=draft.type,
                    key=draft.key,
                    content=draft.content,
                    metadata=draft.metadata,
                    expires_at=draft.expires_at,
                    created_at=draft.valid_from,
                    updated_at=draft.valid_to,
                )
                for draft in plan.summaries
            ]
            self.memories.replace(items, [(c.id, c.api_key_id) for c in plan.candidates])
        before, after = plan.tokens_before, plan.tokens_after
        return SummarizeResult(
            candidates=plan.candidates,
            summaries=plan.summaries,
            tokens_before=before,
            tokens_after=after,
            tokens_saved=max(before - after, 0),
            past_retention=past,
            dry_run=dry_run,
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
