"""Queued work, whichever queue delivered it (SQS workers, or the in-process queue)."""

from __future__ import annotations

from .memories import MemoryService
from .models import EmbeddingJob, ExtractionJob, ExtractionOutcome, Job
from .vectors import VectorService

__all__ = ["JobService"]


class JobService:
    def __init__(self, memories: MemoryService, vectors: VectorService) -> None:
        self.memories = memories
        self.vectors = vectors

    def handle(self, job: Job) -> ExtractionOutcome | int:
        if isinstance(job, ExtractionJob):
            return self.extraction(job)
        return self.embedding(job)

    def extraction(self, job: ExtractionJob) -> ExtractionOutcome:
        """Store the facts of one chat exchange (once); their vectors are then requested."""
        return self.memories.process_extraction(job)

    def embedding(self, job: EmbeddingJob) -> int:
        """Embed the job's memories if they still need it; how many were stored."""
        return self.vectors.process_embedding(job)
