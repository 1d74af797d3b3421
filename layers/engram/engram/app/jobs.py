"""Queued work, whichever queue delivered it (SQS workers, or the in-process queue)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from engram.app.health import FailureLog
from engram.app.memories import MemoryService
from engram.app.vectors import VectorService
from engram.domain.errors import log_safe
from engram.domain.models import EmbeddingJob, ExtractionJob, ExtractionOutcome, Job

__all__ = ["JobService"]

log = logging.getLogger(__name__)


class JobService:
    def __init__(
        self,
        memories: MemoryService,
        vectors: VectorService,
        failures: FailureLog,
        *,
        learn: Callable[[ExtractionJob], ExtractionOutcome] | None = None,
    ) -> None:
        self.memories = memories
        # Where a chat's facts go: the primary backend (``BackendManager.learn``).
        self.learn = learn or memories.process_extraction
        self.vectors = vectors
        self.failures = failures

    def handle(self, job: Job) -> ExtractionOutcome | int:
        """Process one job; a failure is recorded (and raised: the queue retries it)."""
        component = f"{job.kind} jobs"
        try:
            done = self.extraction(job) if isinstance(job, ExtractionJob) else self.embedding(job)
        except Exception as exc:
            self.failures.failed(component, log_safe(exc))
            raise
        self.failures.recovered(component)
        return done

    def read_ahead(self, jobs: Sequence[Job]) -> int:
        """Before a batch of jobs is handled one by one: read the chat exchanges of each
        session together (one model call, not one each). Never raises: a job whose
        exchange was not read ahead is read when it is handled."""
        try:
            return self.memories.reader.read_ahead(
                [job for job in jobs if isinstance(job, ExtractionJob)]
            )
        except Exception as exc:
            log.warning("jobs not read ahead: %s", log_safe(exc))
            return 0

    def extraction(self, job: ExtractionJob) -> ExtractionOutcome:
        """Store the facts of one chat exchange (once) in the primary backend; libSQL then
        requests their vectors."""
        return self.learn(job)

    def embedding(self, job: EmbeddingJob) -> int:
        """Embed the job's memories if they still need it; how many were stored."""
        return self.vectors.process_embedding(job)
