"""The engine facade: Engram's use cases, one sub-service each.

Built by :func:`engram.wiring.build_engine` (or ``open_engine``), which is the
only place that knows the adapters behind them. Callers reach a use case
through its sub-service (``engine.memories.create(...)``,
``engine.retrieval.preview(...)``, ``engine.chat.complete(...)``...). ``engine.backends``
routes memories to the primary backend and its fallbacks (libSQL unless configured).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .apikeys import ApiKeyService
from .backends import BackendManager
from .chat import ChatService
from .config import Config
from .jobs import JobService
from .memories import MemoryService
from .models.common import to_millis
from .ports import JobQueue
from .qdrant import QdrantService
from .retrieval import Retriever
from .settings import SettingsStore
from .status import StatusService
from .summarization import Maintenance
from .vectors import VectorService

__all__ = ["Clock", "Engine", "Queues", "utc_now"]

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Queues:
    """Where this engine sends work: extraction jobs (the chat proxy) and embedding jobs
    (every write). ``None`` when this deployment leaves that work to a schedule."""

    extraction: JobQueue
    embedding: JobQueue | None


@dataclass
class Engine:
    config: Config
    clock: Clock
    memories: MemoryService
    retrieval: Retriever
    backends: BackendManager
    chat: ChatService
    vectors: VectorService
    qdrant: QdrantService
    settings: SettingsStore
    keys: ApiKeyService
    maintenance: Maintenance
    status: StatusService
    jobs: JobService
    queues: Queues
    closers: Sequence[Callable[[], None]] = field(default_factory=tuple)

    def now_ms(self) -> int:
        return to_millis(self.clock())

    def close(self) -> None:
        for close in self.closers:
            close()
