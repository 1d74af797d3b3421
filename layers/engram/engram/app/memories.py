"""Memory use cases: upsert by key, read, change, delete, forget, list, export, learn.

Every write is redacted first: secret-shaped values never reach storage, whatever
path they come by (REST, import, extraction). Every write that gives a memory new
text asks for its vector on the embedding queue (after the transaction commits),
so retrieval finds it by meaning without waiting for a reindex. A failed request is
logged, never raised: the memory is stored and stays marked for embedding, which
the reindex schedule catches up on. Whatever leaves ``memories`` (deleted,
forgotten, retired) is announced to the other indexes and caches (``on_remove``).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator, Sequence

from engram.app.conversation import turn_memories
from engram.app.health import FailureLog
from engram.app.learning import Learned, duplicate_outcome, job_outcome, learn
from engram.app.reading import ExchangeReader, Read
from engram.domain.errors import EngramError, InvalidInputError
from engram.domain.models import (
    EmbeddingJob,
    ExtractionJob,
    ExtractionOutcome,
    ForgetOutcome,
    HealthReport,
    Memory,
    MemoryCreate,
    MemoryForget,
    MemoryHistory,
    MemoryPage,
    MemoryQuery,
    MemoryStats,
    MemoryUpdate,
    Removed,
    UpsertOutcome,
)
from engram.domain.models.common import from_millis, to_millis
from engram.domain.models.facts import Extraction, ExtractionRequest, KnownFact, SpokenTurn
from engram.domain.writes import derive_key, not_expired, redacted
from engram.ports import (
    Extractor,
    FactHistory,
    JobLedger,
    JobQueue,
    MemoryStore,
    RetrievalStats,
    UnitOfWork,
)

__all__ = ["HEALTH_OWNER", "MemoryService"]


log = logging.getLogger(__name__)

# The owner of the health check's probe memory: never a real key's id (those start "key_").
HEALTH_OWNER = "engram:health-check"
# An embedding job names at most this many memories (EmbeddingJob.memory_ids).
_IDS_PER_JOB = 500


class MemoryService:
    def __init__(
        self,
        store: MemoryStore,
        history: FactHistory,
        ledger: JobLedger,
        stats: RetrievalStats,
        uow: UnitOfWork,
        now_ms: Callable[[], int],
        *,
        embedding_queue: JobQueue | None = None,
        on_remove: Sequence[Callable[[Removed], None]] = (),
        failures: FailureLog | None = None,
        extractor: Extractor,
        related: Callable[[str, str], list[KnownFact]] | None = None,
    ) -> None:
        self.failures = failures or FailureLog(now_ms)
        # What learns from a chat (settings.extractor), and, for one that reconciles, the
        # owner's closest facts to a text (``related(owner, text)``).
        self.extractor = extractor
        self.reader = ExchangeReader(extractor, now_ms, related, done=ledger.seen)
        self.store = store
        self.history = history
        self.ledger = ledger
        self.stats_store = stats
        self.uow = uow
        self.now_ms = now_ms
        self.embedding_queue = embedding_queue
        # Other indexes and caches to tell what left (Qdrant points, cached vectors);
        # their failures are logged, never raised: the rows are gone either way.
        self.on_remove = tuple(on_remove)

    # -- writes -------------------------------------------------------------------------

    def upsert(self, item: MemoryCreate) -> UpsertOutcome:
        now = self.now_ms()
        item = redacted(item)
        not_expired(item.expires_at, now)
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

    def replace(
        self, items: list[MemoryCreate], removals: Sequence[tuple[str, str]]
    ) -> list[UpsertOutcome]:
        """Write ``items`` and delete ``removals`` ((id, owner) pairs) in one transaction.
        Vectors are requested and the removals announced after the commit: the hooks
        take index locks and call Qdrant, and holding the connection across them would
        stall every other request (and deadlock a thread that holds an index lock while
        it waits for the connection)."""
        now = self.now_ms()
        removed = Removed()
        with self.uow.transaction():
            outcomes = self._upsert_all(items, now)
            for memory_id, owner in removals:
                removed += self.store.delete(memory_id, owner, now)
        self._request_for(outcomes)
        self._announce(removed)
        return outcomes

    def _upsert_all(self, items: list[MemoryCreate], now: int) -> list[UpsertOutcome]:
        ready = []
        for index, item in enumerate(items):
            item = redacted(item)
            try:
                not_expired(item.expires_at, now)
            except InvalidInputError as exc:
                # Name the item, so a caller importing thousands can find it.
                field = f"[{index}].{exc.field}" if exc.field else f"[{index}]"
                raise type(exc)(f"item {index}: {exc.message}", field=field) from exc
            ready.append((item, item.key or derive_key(item.content)))
        with self.uow.transaction():
            return self.store.upsert_many(ready, now)

    def update(
        self, memory_id: str, changes: MemoryUpdate, api_key_id: str | None = None
    ) -> Memory | None:
        now = self.now_ms()
        changes = redacted(changes)
        not_expired(changes.expires_at, now)
        outcome = self.store.update(memory_id, api_key_id, changes, now)
        if outcome is None:
            return None
        memory, content_changed = outcome
        if content_changed:
            self.request_vectors(memory.api_key_id, [memory.id])
        return memory

    def pin(
        self, memory_id: str, pinned: bool | None, api_key_id: str | None = None
    ) -> Memory | None:
        """Put a memory in the profile (True), keep it out (False), or let its category
        decide (None): ``metadata.pinned``, the rest of its metadata kept. None when no
        such memory (of ``api_key_id``, when given) is live."""
        memory = self.store.get(memory_id, api_key_id, self.now_ms())
        if memory is None:
            return None
        metadata = {k: v for k, v in memory.metadata.items() if k != "pinned"}
        if pinned is not None:
            metadata["pinned"] = pinned
        return self.update(memory_id, MemoryUpdate(metadata=metadata), memory.api_key_id)

    def delete(self, memory_id: str, api_key_id: str | None = None) -> bool:
        removed = self.store.delete(memory_id, api_key_id, self.now_ms())
        self._announce(removed)
        return bool(removed)

    def forget(self, request: MemoryForget) -> ForgetOutcome:
        """Delete a key's memories matching the filters, with their history, from every
        store: rows, the keyword index, vectors (every process's matrices catch up by
        tombstone), Qdrant points and cached vectors. ``dryRun`` only counts."""
        outcome, removed = self.history.forget(request, self.now_ms())
        self._announce(removed)
        log.info(
            "forgot %d memories and %d retired versions of %s%s",
            outcome.deleted,
            outcome.history,
            request.api_key_id,
            " (dry run)" if request.dry_run else "",
        )
        return outcome

    def versions(self, memory_id: str, api_key_id: str | None = None) -> MemoryHistory | None:
        """The fact ``memory_id`` belongs to, version by version (newest first)."""
        found = self.history.versions(memory_id, api_key_id)
        return None if found is None else MemoryHistory(data=found)

    def _announce(self, removed: Removed) -> None:
        if not removed:
            return
        for hook in self.on_remove:
            try:
                hook(removed)
            except EngramError:
                log.warning(
                    "an index or cache kept %d removed memories", len(removed.ids), exc_info=True
                )

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
        """Learn from one chat exchange exactly once, however often it is delivered.

        The turns are read first, outside any transaction: reading takes what it takes
        (a model's answer, a long message) and holds no lock meanwhile. What they teach
        is then written by ``reconcile``.
        """
        if self.ledger.seen(job.request_id):
            return duplicate_outcome(job)
        return self.reconcile(job, self.read(job))

    def reconcile(self, job: ExtractionJob, read: Read) -> ExtractionOutcome:
        """Write what ``read`` (the turns of ``job``, already read) teaches, reconciled
        with what is stored: a corrected fact retires the old one, with history. One
        short transaction with the job id, so a crash between reading and writing cannot
        leave the job half-done and marked done. Vectors are requested, and retired facts
        announced, after the commit."""
        with self.uow.transaction():
            if self.ledger.seen(job.request_id):  # another worker wrote it meanwhile
                return duplicate_outcome(job)
            outcomes: list[UpsertOutcome] = []
            retired = Removed()
            for role, said_in, extraction in read:
                learned = self._learn(job.api_key_id, extraction, job.session_id, role, said_in)
                outcomes += learned.outcomes
                retired += learned.retired
            # The turns themselves, as said at the chat's time (retention counts from it).
            said = self.now_ms() if job.at is None else min(to_millis(job.at), self.now_ms())
            for item in turn_memories(job):
                outcomes.append(self.store.upsert(redacted(item), item.key or "", said))
            self.ledger.mark(job.request_id, job.kind, self.now_ms())
        self._request_for(outcomes, f"{job.request_id}.embed")
        self._announce(retired)
        return job_outcome(job, outcomes, retired=list(retired.ids))

    def read(self, job: ExtractionJob) -> Read:
        """What each turn of ``job`` teaches, by the configured extractor: (whose words,
        the key of the stored turn they were said in, the extraction), turn by turn."""
        return self.reader.read(job)

    def extract_and_store(
        self, api_key_id: str, text: str, session_id: str | None = None, role: str = "user"
    ) -> list[UpsertOutcome]:
        """Learn the facts of ``text`` as said by ``role`` (idempotent: keys are stable)."""
        request = ExtractionRequest(
            owner=api_key_id,
            turns=(SpokenTurn(role, text),),
            at=from_millis(self.now_ms()),
            session_id=session_id,
        )
        (extraction,) = self.extractor.extract(request)
        with self.uow.transaction():
            learned = self._learn(api_key_id, extraction, session_id, role)
        self._request_for(learned.outcomes)
        self._announce(learned.retired)
        return learned.outcomes

    def _learn(
        self,
        owner: str,
        extraction: Extraction,
        session_id: str | None,
        role: str,
        said_in: str | None = None,
    ) -> Learned:
        now = self.now_ms()
        return learn(
            self.store,
            self.history,
            extraction,
            owner=owner,
            session_id=session_id,
            source=role,
            extracted_at=from_millis(now),
            now_ms=now,
            said_in=said_in,
        )


def _fresh(outcomes: list[UpsertOutcome]) -> list[str]:
    return [o.memory.id for o in outcomes if o.created or o.content_changed]
