"""Memory use cases: upsert by key, read, change, delete, list, export, extract.

Every write that gives a memory new text asks for its vector on the embedding
queue (after the transaction commits), so retrieval finds it by meaning without
waiting for a reindex. A failed request is logged, never raised: the memory is
stored and stays marked for embedding, which the reindex schedule catches up on.
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime

from .errors import EngramError, InvalidInputError
from .extraction import extract_facts
from .health import FailureLog
from .models import (
    EmbeddingJob,
    ExtractionJob,
    ExtractionOutcome,
    HealthReport,
    Memory,
    MemoryCreate,
    MemoryPage,
    MemoryQuery,
    MemoryStats,
    MemoryUpdate,
    UpsertOutcome,
)
from .models.common import from_millis, to_millis
from .ports import JobLedger, JobQueue, MemoryStore, RetrievalStats, UnitOfWork

__all__ = ["HEALTH_OWNER", "MemoryService", "derive_key"]

log = logging.getLogger(__name__)

# The owner of the health check's probe memory: never a real key's id (those start "key_").
HEALTH_OWNER = "engram:health-check"
# An embedding job names at most this many memories (EmbeddingJob.memory_ids).
_IDS_PER_JOB = 500


def derive_key(content: str) -> str:
    """The upsert key of a memory given without one: identical content, one memory."""
    return "memory:" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]


class MemoryService:
    def __init__(
        self,
        store: MemoryStore,
        ledger: JobLedger,
        stats: RetrievalStats,
        uow: UnitOfWork,
        now_ms: Callable[[], int],
        *,
        embedding_queue: JobQueue | None = None,
        on_delete: Sequence[Callable[[str], None]] = (),
        failures: FailureLog | None = None,
    ) -> None:
        self.failures = failures or FailureLog(now_ms)
        self.store = store
        self.ledger = ledger
        self.stats_store = stats
        self.uow = uow
        self.now_ms = now_ms
        self.embedding_queue = embedding_queue
        # Other indexes to tell about a deletion (Qdrant); their failures are logged.
        self.on_delete = tuple(on_delete)

    # -- writes -------------------------------------------------------------------------

    def upsert(self, item: MemoryCreate) -> UpsertOutcome:
        now = self.now_ms()
        _not_expired(item.expires_at, now)
        outcome = self.store.upsert(item, item.key or derive_key(item.content), now)
        self.request_vectors(item.api_key_id, _fresh([outcome]))
        return outcome

    def create(self, item: MemoryCreate) -> Memory:
        return self.upsert(item).memory

    def upsert_many(self, items: list[MemoryCreate]) -> list[UpsertOutcome]:
        """All or nothing: one transaction for the batch."""
        outcomes = self._upsert_all(items, self.now_ms())
        self._request_for(outcomes)
        return outcomes

    def _upsert_all(self, items: list[MemoryCreate], now: int) -> list[UpsertOutcome]:
        outcomes: list[UpsertOutcome] = []
        with self.uow.transaction():
            for index, item in enumerate(items):
                try:
                    _not_expired(item.expires_at, now)
                    outcomes.append(
                        self.store.upsert(item, item.key or derive_key(item.content), now)
                    )
                except InvalidInputError as exc:
                    # Name the item, so a caller importing thousands can find it.
                    field = f"[{index}].{exc.field}" if exc.field else f"[{index}]"
                    raise type(exc)(f"item {index}: {exc.message}", field=field) from exc
        return outcomes

    def update(
        self, memory_id: str, changes: MemoryUpdate, api_key_id: str | None = None
    ) -> Memory | None:
        now = self.now_ms()
        _not_expired(changes.expires_at, now)
        outcome = self.store.update(memory_id, api_key_id, changes, now)
        if outcome is None:
            return None
        memory, content_changed = outcome
        if content_changed:
            self.request_vectors(memory.api_key_id, [memory.id])
        return memory

    def delete(self, memory_id: str, api_key_id: str | None = None) -> bool:
        deleted = self.store.delete(memory_id, api_key_id, self.now_ms())
        if deleted:
            for hook in self.on_delete:
                try:
                    hook(memory_id)
                except EngramError:
                    log.warning("a secondary index kept a deleted memory", exc_info=True)
        return deleted

    def request_vectors(self, owner: str, ids: list[str], request_id: str | None = None) -> None:
        """Ask the embedding worker for these memories' vectors (fail-soft)."""
        if not ids or self.embedding_queue is None:
            return
        base = request_id or f"write-{uuid.uuid4().hex}"
        for part, start in enumerate(range(0, len(ids), _IDS_PER_JOB)):
            job_id = base if start == 0 else f"{base}.{part}"
            job = EmbeddingJob(
                api_key_id=owner, memory_ids=ids[start : start + _IDS_PER_JOB], request_id=job_id
            )
            try:
                self.embedding_queue.send(job)
            except EngramError as exc:
                log.warning("could not queue embeddings for %s; reindex will: %s", job_id, exc)
                self.failures.failed("embedding queue", exc.message)
            else:
                self.failures.recovered("embedding queue")

    def _request_for(self, outcomes: list[UpsertOutcome], request_id: str | None = None) -> None:
        by_owner: dict[str, list[str]] = {}
        for outcome in outcomes:
            if outcome.created or outcome.content_changed:
                by_owner.setdefault(outcome.memory.api_key_id, []).append(outcome.memory.id)
        for owner, ids in by_owner.items():
            self.request_vectors(owner, ids, request_id)

    # -- reads --------------------------------------------------------------------------

    def get(self, memory_id: str, api_key_id: str | None = None) -> Memory | None:
        return self.store.get(memory_id, api_key_id, self.now_ms())

    def list_page(self, query: MemoryQuery) -> MemoryPage:
        data, total, by_type = self.store.list_page(query, self.now_ms())
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
            rows = self.store.export_batch(api_key_id, cursor, self.now_ms(), batch)
            for memory, position in rows:
                cursor = position
                yield memory
            if len(rows) < batch:
                return

    def stats(self, api_key_id: str | None = None) -> MemoryStats:
        total, tokens = self.store.totals(api_key_id, self.now_ms())
        retrievals, hits = self.stats_store.counts(api_key_id)
        return MemoryStats(
            total=total,
            tokens_used=tokens,
            hit_rate=round(hits / retrievals, 4) if retrievals else 0.0,
            retrievals=retrievals,
        )

    def health(self) -> HealthReport:
        """A create -> list -> delete round trip on a probe memory; always cleans up."""
        started = time.perf_counter()
        probe: Memory | None = None
        error: str | None = None
        item = MemoryCreate(api_key_id=HEALTH_OWNER, key="probe", content="health probe")
        try:
            # The store directly: a probe needs no vector.
            probe = self.store.upsert(item, "probe", self.now_ms()).memory
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

    # -- extraction -----------------------------------------------------------------------

    def process_extraction(self, job: ExtractionJob) -> ExtractionOutcome:
        """Run one extraction job exactly once, however often it is delivered.

        The job id is recorded in the same transaction as the memories, so a crash
        between the two cannot leave the job half-done and marked done. Vectors are
        requested after the commit.
        """
        with self.uow.transaction():
            if self.ledger.seen(job.request_id):
                return ExtractionOutcome(
                    request_id=job.request_id, duplicate=True, created=[], changed=[], unchanged=[]
                )
            facts = self._facts(job.api_key_id, job.text, job.session_id)
            outcomes = self._upsert_all(facts, self.now_ms())
            self.ledger.mark(job.request_id, job.kind, self.now_ms())
        self._request_for(outcomes, f"{job.request_id}.embed")
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
        items = self._facts(api_key_id, text, session_id, source)
        return self.upsert_many(items) if items else []

    def _facts(
        self, api_key_id: str, text: str, session_id: str | None, source: str = "chat"
    ) -> list[MemoryCreate]:
        extracted_at = from_millis(self.now_ms())
        return [
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


def _not_expired(expires_at: datetime | None, now_ms: int) -> None:
    """A memory written already expired would be stored and never seen: refuse it."""
    if expires_at is not None and to_millis(expires_at) <= now_ms:
        raise InvalidInputError("expiresAt is in the past", field="expiresAt")


def _fresh(outcomes: list[UpsertOutcome]) -> list[str]:
    return [o.memory.id for o in outcomes if o.created or o.content_changed]
