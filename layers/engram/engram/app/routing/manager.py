"""The backend manager: memories routed to a primary backend and an ordered chain of
fallbacks (SPEC section 8, the reference's MemoryManager).

- create, list: the primary only;
- get: the primary first, then each fallback in order while the answer is "none" (or
  the backend failed);
- update, delete: the primary answers the caller; the fallbacks get the same change
  in the background, and a failure there is logged, never raised;
- search: the primary first, then each fallback in order while backends fail.

Backends are built from the stored settings (``primaryBackend``, ``fallbackBackends``,
``backendConfigs``) and rebuilt when their configuration changes by the registry
(``registry.py``); this module is the routing policy. A search says which backend
answered and why the ones before it did not (``resolution.backend``,
``backendFailures``); engine-status reports every backend's health. Memory never
fails a chat: the chat path catches what a search raises.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from datetime import UTC, datetime
from typing import Any

from engram.app.conversation import turn_memories
from engram.app.health import FailureLog
from engram.app.learning import duplicate_outcome, fact_items, job_outcome
from engram.app.memories import MemoryService
from engram.app.reading import Read
from engram.app.routing.libsql_backend import LIBSQL, LibsqlBackend, Reconciling
from engram.app.routing.registry import BackendRegistry
from engram.app.settings import SettingsStore
from engram.domain.errors import (
    BackendError,
    EngramError,
    InvalidInputError,
    NotFoundError,
    log_safe,
)
from engram.domain.models import (
    MAX_TOKENS_LIMIT,
    ExtractionJob,
    ExtractionOutcome,
    Memory,
    MemoryCreate,
    MemoryPage,
    MemoryQuery,
    MemorySettings,
    MemoryUpdate,
    RetrievalRequest,
    RetrievalResult,
    UpsertOutcome,
)
from engram.domain.models.backends import (
    BackendFailure,
    BackendsStatus,
    BackendStatus,
    backend_kind,
    check_backends,
)
from engram.domain.tokens import fit
from engram.domain.writes import derive_key, prepare_write
from engram.ports import BackendFactory, MemoryBackend

__all__ = ["BackendManager"]

log = logging.getLogger(__name__)


class BackendManager:
    def __init__(
        self,
        settings: SettingsStore,
        local: LibsqlBackend,
        factory: BackendFactory,
        memories: MemoryService,
        now_ms: Callable[[], int],
        *,
        failures: FailureLog | None = None,
        sync_workers: int = 2,
    ) -> None:
        self.settings = settings
        self.registry = BackendRegistry(settings, local, factory)
        self.memories = memories
        self.now_ms = now_ms
        self.failures = failures or FailureLog(now_ms)
        self._lock = threading.Lock()
        self._sync = ThreadPoolExecutor(sync_workers, thread_name_prefix="engram-backend-sync")
        self._pending: set[Future[None]] = set()

    # -- which backends (their lifecycle is the registry's) ----------------------------------

    def chain(self, settings: MemorySettings | None = None) -> list[str]:
        return self.registry.chain(settings)

    def backend(self, name: str, settings: MemorySettings | None = None) -> MemoryBackend:
        return self.registry.backend(name, settings)

    def primary(self) -> MemoryBackend:
        return self.registry.primary()

    # -- create, list: the primary only -------------------------------------------------------

    def create(self, item: MemoryCreate) -> UpsertOutcome:
        primary = self.primary()
        if primary is self.registry.local:
            return self.registry.local.create(item)  # the memory use case redacts and checks it
        item = prepare_write(item, self.now_ms())
        if item.key is None:
            item = item.model_copy(update={"key": derive_key(item.content)})
        return primary.create(item)

    def list_page(self, query: MemoryQuery) -> MemoryPage:
        return self.primary().list_page(query)

    # -- get: along the chain while nothing is found -------------------------------------------

    def get(self, memory_id: str, owner: str | None = None) -> Memory | None:
        failed: BackendFailure | None = None
        for name in self.chain():
            try:
                found = self.backend(name).get(memory_id, owner)
            except InvalidInputError:
                raise  # the caller's mistake, whichever backend is asked
            except Exception as exc:  # a backend's fault: the next one is asked
                error = self._failed(name, exc)
                failed = failed or BackendFailure(backend=name, error=error)
                continue
            if found is not None:
                return found
        if failed is not None:  # it may be where the failing backend keeps it
            raise BackendError(f"{failed.backend} failed: {failed.error}")
        return None

    # -- update, delete: the primary answers, the fallbacks follow in the background ------------

    def update(
        self, memory_id: str, changes: MemoryUpdate, owner: str | None = None
    ) -> Memory | None:
        names = self.chain()
        primary = self.backend(names[0])
        if primary is not self.registry.local:
            changes = prepare_write(changes, self.now_ms())
        updated = primary.update(memory_id, owner, changes)
        self._follow(names[1:], "update", lambda b: b.update(memory_id, owner, changes))
        return updated

    def delete(self, memory_id: str, owner: str | None = None) -> bool:
        names = self.chain()
        deleted = self.backend(names[0]).delete(memory_id, owner)
        self._follow(names[1:], "delete", lambda b: b.delete(memory_id, owner))
        return deleted

    def _follow(self, names: list[str], operation: str, change: Callable[[Any], object]) -> None:
        for name in names:
            future = self._sync.submit(self._apply, name, operation, change)
            with self._lock:
                self._pending.add(future)
            future.add_done_callback(self._done)

    def _apply(self, name: str, operation: str, change: Callable[[Any], object]) -> None:
        try:
            change(self.backend(name))
        except Exception as exc:  # a fallback that cannot follow is logged, never raised
            log.warning("fallback backend %s did not %s: %s", name, operation, log_safe(exc))
            self.failures.failed(f"backend {name}", f"{operation}: {log_safe(exc)}")

    def _done(self, future: Future[None]) -> None:
        with self._lock:
            self._pending.discard(future)

    def flush(self, timeout_s: float = 10.0) -> None:
        """Wait for the fallbacks' background changes (tests, shutdown)."""
        with self._lock:
            pending = list(self._pending)
        wait(pending, timeout=timeout_s)

    # -- search: along the chain while backends fail -------------------------------------------

    def retrieve(self, api_key_id: str, request: RetrievalRequest) -> RetrievalResult:
        """What the chat path injects."""
        return self.search(api_key_id, request, read_only=False)

    def preview(self, api_key_id: str, request: RetrievalRequest) -> RetrievalResult:
        """The same answer, read-only (the retrieval preview)."""
        return self.search(api_key_id, request, read_only=True)

    def search(
        self, api_key_id: str, request: RetrievalRequest, *, read_only: bool
    ) -> RetrievalResult:
        settings = self.settings.get()
        failures: list[BackendFailure] = []
        for name in self.chain(settings):
            try:
                backend = self.backend(name, settings)
                result = backend.search(api_key_id, request, read_only=read_only)
            except InvalidInputError:
                raise  # the caller's mistake, whichever backend is asked
            except Exception as exc:  # a backend's fault: the next one is asked
                failures.append(BackendFailure(backend=name, error=self._failed(name, exc)))
                continue
            self.failures.recovered(f"backend {name}")
            return _answered(result, name, failures, settings, request)
        raise BackendError("every memory backend failed: " + "; ".join(f.error for f in failures))

    def _failed(self, name: str, exc: Exception) -> str:
        """Log and record a backend's failure; what may be shown of it (never content)."""
        error = exc.message if isinstance(exc, EngramError) else log_safe(exc)
        log.warning("memory backend %s failed: %s", name, error)
        self.failures.failed(f"backend {name}", error)
        return error

    # -- learning from a chat -----------------------------------------------------------------

    def learn(self, job: ExtractionJob) -> ExtractionOutcome:
        """Store the facts of one chat exchange in the primary, exactly once, whichever
        backend it is. The turns are read once, outside any transaction; a backend that
        reconciles (libSQL: corrections retire facts, with history) writes them itself,
        any other receives them through ``create``."""
        if self.memories.ledger.seen(job.request_id):
            return duplicate_outcome(job)
        read = self.memories.read(job)
        primary = self.primary()
        if isinstance(primary, Reconciling):
            return primary.learn(job, read)
        return self._create_each(primary, job, read)

    def _create_each(
        self, primary: MemoryBackend, job: ExtractionJob, read: Read
    ) -> ExtractionOutcome:
        extracted_at = datetime.fromtimestamp(self.now_ms() / 1000, UTC)
        items = [
            item
            for role, _, extraction in read
            for item in fact_items(
                extraction,
                owner=job.api_key_id,
                session_id=job.session_id,
                source=role,
                extracted_at=extracted_at,
            )
        ]
        items += turn_memories(job)  # conversation memory, when the job asks for it
        outcomes = [primary.create(prepare_write(item, self.now_ms())) for item in items]
        self.memories.ledger.mark(job.request_id, job.kind, self.now_ms())
        return job_outcome(job, outcomes)

    # -- health ---------------------------------------------------------------------------------

    def test(self, name: str) -> BackendStatus:
        """Build backend ``name`` from the stored settings and probe it."""
        settings = self.settings.get()
        if backend_kind(name, settings.backend_configs.get(name)) is None:
            raise NotFoundError(f"no backend named {name}", field="name")
        return self._status(name, settings, probe=True)

    def status(self) -> BackendsStatus:
        """Every backend of the chain probed (remote ones; libSQL's own health is
        ``GET /api/memory/health``), and the other configured ones listed, unprobed."""
        settings = self.settings.get()
        chain = self.chain(settings)
        names = list(dict.fromkeys([*chain, *settings.backend_configs]))
        return BackendsStatus(
            primary=settings.primary_backend,
            fallbacks=list(settings.fallback_backends),
            backends=[
                self._status(name, settings, probe=name in chain and name != LIBSQL)
                for name in names
            ],
        )

    def _status(self, name: str, settings: MemorySettings, *, probe: bool) -> BackendStatus:
        chain = self.chain(settings)
        role = "primary" if name == chain[0] else "fallback" if name in chain else "configured"
        kind = backend_kind(name, settings.backend_configs.get(name)) or "unknown"
        if not probe:
            return BackendStatus(name=name, kind=kind, role=role, healthy=None)
        try:
            if name != LIBSQL and name not in chain:
                check_backends(name, [], settings.backend_configs)
            report = self.backend(name, settings).health()
        except EngramError as exc:
            return BackendStatus(name=name, kind=kind, role=role, healthy=False, error=exc.message)
        return BackendStatus(
            name=name,
            kind=kind,
            role=role,
            healthy=report.working,
            latency_ms=report.latency_ms,
            error=report.error,
        )

    def close(self) -> None:
        self.flush()
        self._sync.shutdown(wait=True)
        self.registry.close()


def _answered(
    result: RetrievalResult,
    name: str,
    failures: list[BackendFailure],
    settings: MemorySettings,
    request: RetrievalRequest,
) -> RetrievalResult:
    """``result`` fitted to the budget, saying which backend answered and why the ones
    before it did not. The profile (libSQL's, fitted to its own budget) stays; the
    recall gets what is left of the budget and the limit."""
    budget = settings.max_tokens if request.max_tokens is None else request.max_tokens
    budget = min(budget, MAX_TOKENS_LIMIT)
    profile = [m for m in result.results if m.tier == "profile"] if budget > 0 else []
    profile_used = sum(m.tokens for m in profile)
    recall = [m for m in result.results if m.tier != "profile"]
    left = budget - profile_used
    walked = (
        fit(recall, lambda m: m.tokens, left, request.limit, at_least_one=True) if left > 0 else []
    )
    chosen = [memory for memory, _ in walked]
    used = sum(tokens for _, tokens in walked)
    resolution = result.resolution
    reasons = [f"{f.backend} failed ({f.error}): answered by {name}" for f in failures]
    if resolution.reason:
        reasons.append(resolution.reason)
    strategy = resolution.strategy
    if resolution.keyword_tier == "backend":  # a remote search: the strategy asked for
        strategy = request.strategy or settings.strategy
    resolution = resolution.model_copy(
        update={
            "strategy": strategy,
            "backend": name,
            "backend_failures": failures,
            "fallback": resolution.fallback or bool(failures),
            "reason": "; ".join(reasons) or None,
        }
    )
    return RetrievalResult(
        results=profile + chosen,
        tokens_used=profile_used + used,
        profile_tokens=profile_used,
        recall_tokens=used,
        resolution=resolution,
    )
