"""Memory operations on top of the repository: upsert keys, extraction, listing, stats."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterator
from datetime import datetime

from .errors import ConflictError, EngramError
from .extraction import extract_facts
from .models import (
    ExtractionJob,
    ExtractionOutcome,
    HealthReport,
    Memory,
    MemoryCreate,
    MemoryPage,
    MemoryQuery,
    MemoryStats,
    MemoryUpdate,
)
from .models.common import to_millis
from .storage.memories import MemoryRepository, UpsertOutcome

__all__ = ["HEALTH_OWNER", "MemoryService", "derive_key"]

log = logging.getLogger(__name__)

# The owner of the health check's probe memory: never a real key's id (those start "key_").
HEALTH_OWNER = "engram:health-check"


def derive_key(content: str) -> str:
    """The upsert key of a memory given without one: identical content, one memory."""
    return "memory:" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]


class MemoryService:
    def __init__(self, repo: MemoryRepository, clock: Callable[[], datetime]) -> None:
        self.repo = repo
        self.clock = clock
        # Other indexes to tell about a deletion (Qdrant); their failures are logged.
        self.on_delete: list[Callable[[str], None]] = []

    def _now(self) -> int:
        return to_millis(self.clock())

    def upsert(self, item: MemoryCreate) -> UpsertOutcome:
        return self.repo.upsert(item, item.key or derive_key(item.content), self._now())

    def create(self, item: MemoryCreate) -> Memory:
        return self.upsert(item).memory

    def upsert_many(self, items: list[MemoryCreate]) -> list[UpsertOutcome]:
        """All or nothing: one transaction for the batch."""
        now = self._now()
        outcomes: list[UpsertOutcome] = []
        with self.repo.db.transaction():
            for index, item in enumerate(items):
                try:
                    outcomes.append(
                        self.repo.upsert(item, item.key or derive_key(item.content), now)
                    )
                except ConflictError as exc:
                    # Name the item, so a caller importing thousands can find it.
                    field = f"[{index}].{exc.field}" if exc.field else f"[{index}]"
                    raise ConflictError(f"item {index}: {exc.message}", field=field) from exc
        return outcomes

    def get(self, memory_id: str, api_key_id: str | None = None) -> Memory | None:
        return self.repo.get(memory_id, api_key_id, self._now())

    def update(
        self, memory_id: str, changes: MemoryUpdate, api_key_id: str | None = None
    ) -> Memory | None:
        outcome = self.repo.update(memory_id, api_key_id, changes, self._now())
        return None if outcome is None else outcome[0]

    def delete(self, memory_id: str, api_key_id: str | None = None) -> bool:
        deleted = self.repo.delete(memory_id, api_key_id, self._now())
        if deleted:
            for hook in self.on_delete:
                try:
                    hook(memory_id)
                except EngramError:
                    log.warning("a secondary index kept a deleted memory", exc_info=True)
        return deleted

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

    def export(self, api_key_id: str | None = None, batch: int = 500) -> Iterator[Memory]:
        """Every live memory (of one owner, or all) in creation order, read in batches.

        Each batch is its own short query, so a slow consumer never holds the database.
        """
        cursor: tuple[int, int] | None = None
        while True:
            rows = self.repo.export_batch(api_key_id, cursor, self._now(), batch)
            for memory, position in rows:
                cursor = position
                yield memory
            if len(rows) < batch:
                return

    def health(self) -> HealthReport:
        """A create -> list -> delete round trip on a probe memory; always cleans up."""
        started = time.perf_counter()
        probe: Memory | None = None
        error: str | None = None
        try:
            probe = self.create(
                MemoryCreate(api_key_id=HEALTH_OWNER, key="probe", content="health probe")
            )
            listed = self.list_page(MemoryQuery(api_key_id=HEALTH_OWNER, limit=5))
            if probe.id not in {m.id for m in listed.data}:
                error = "the probe memory was written but not listed"
        except EngramError as exc:
            error = exc.message
        finally:
            try:
                if probe is not None and not self.delete(probe.id, HEALTH_OWNER):
                    error = error or "the probe memory could not be deleted"
            except EngramError as exc:
                error = error or exc.message
        latency = round((time.perf_counter() - started) * 1000, 3)
        return HealthReport(working=error is None, latency_ms=latency, error=error)

    def stats(self, api_key_id: str | None = None) -> MemoryStats:
        total, tokens = self.repo.totals(api_key_id, self._now())
        retrievals, hits = self.repo.retrieval_counts(api_key_id)
        return MemoryStats(
            total=total,
            tokens_used=tokens,
            hit_rate=round(hits / retrievals, 4) if retrievals else 0.0,
            retrievals=retrievals,
        )

    def process_extraction(self, job: ExtractionJob) -> ExtractionOutcome:
        """Run one extraction job exactly once, however often it is delivered.

        The job id is recorded in the same transaction as the memories, so a crash
        between the two cannot leave the job half-done and marked done.
        """
        with self.repo.db.transaction():
            if self.repo.job_seen(job.request_id):
                return ExtractionOutcome(
                    request_id=job.request_id, duplicate=True, created=[], changed=[], unchanged=[]
                )
            outcomes = self.extract_and_store(job.api_key_id, job.text, job.session_id)
            self.repo.mark_job(job.request_id, job.kind, self._now())
        return ExtractionOutcome(
            request_id=job.request_id,
            duplicate=False,
            created=[o.memory.id for o in outcomes if o.created],
            changed=[o.memory.id for o in outcomes if not o.created and o.content_changed],
            unchanged=[o.memory.id for o in outcomes if not o.created and not o.content_changed],
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
