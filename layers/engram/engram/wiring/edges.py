"""The edges the composition root builds from the environment: job queues (SQS, a worker
thread or inline), the upstream model, the LLM extractor's endpoint, the Qdrant store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engram.adapters.llm_extractor import HttpExtractionModel
from engram.adapters.queues import InlineQueue, InProcessQueue, SqsQueue
from engram.adapters.upstream import HttpUpstream, MissingUpstream
from engram.config import Config
from engram.domain.models import Job, QdrantSettings
from engram.domain.urlpolicy import same_origin
from engram.engine import Engine
from engram.ports import (
    ExtractionModel,
    JobQueue,
    PointStore,
    Upstream,
)

__all__ = [
    "JobMode",
    "Late",
    "extraction_model_for",
    "point_store_for",
    "queue_for",
    "upstream_for",
]

# How jobs without a queue URL are processed: "auto" (a worker thread locally, inline in
# Lambda), "manual" (held until someone drains the in-process queue: tests, benchmarks)
# or "inline".
JobMode = Literal["auto", "manual", "inline"]


@dataclass
class Late:
    """The engine's job handler, for queues built before the engine they feed."""

    engine: Engine | None = None

    def __call__(self, job: Job) -> object:
        assert self.engine is not None, "a job arrived before the engine was built"
        return self.engine.jobs.handle(job)

    def read_ahead(self, jobs: list[Job]) -> object:
        assert self.engine is not None, "jobs arrived before the engine was built"
        return self.engine.jobs.read_ahead(jobs)


def queue_for(
    config: Config, url: str | None, mode: JobMode, late: Late, *, reads: bool = False
) -> JobQueue:
    """``reads``: the queue of extraction jobs, whose batches are read ahead."""
    if url:
        return SqsQueue(url, endpoint_url=config.aws_endpoint_url)
    if mode == "inline" or (mode == "auto" and config.in_lambda):
        return InlineQueue(late)
    return InProcessQueue(
        late,
        read_ahead=late.read_ahead if reads else None,
        autostart=mode == "auto",
        maxsize=0 if mode == "manual" else 10_000,
    )


def upstream_for(config: Config) -> Upstream:
    if not config.upstream_base_url:
        return MissingUpstream()
    key = config.upstream_api_key.get_secret_value() if config.upstream_api_key else None
    return HttpUpstream(
        config.upstream_base_url,
        key,
        timeout_s=config.upstream_timeout_s,
        connect_timeout_s=config.upstream_connect_timeout_s,
    )


def extraction_model_for(config: Config) -> ExtractionModel:
    """The LLM extractor's endpoint client: the extractor's own key goes to any endpoint the
    settings name; the upstream's key only to the upstream's own origin."""
    upstream = config.upstream_base_url
    own = config.extractor_api_key
    upstream_key = config.upstream_api_key

    def key_for(base_url: str) -> str | None:
        if own is not None:
            return own.get_secret_value()
        if upstream_key is not None and upstream and same_origin(base_url, upstream):
            return upstream_key.get_secret_value()
        return None

    return HttpExtractionModel(upstream, key_for, timeout_s=config.extractor_timeout_s)


def point_store_for(config: Config) -> Callable[[QdrantSettings], PointStore]:
    def build(settings: QdrantSettings) -> PointStore:
        from engram.adapters.qdrant_store import QdrantStore  # qdrant-client costs ~1 s to import

        return QdrantStore(settings, config.data_dir)

    return build
