"""The engine facade: Engram's use cases, one sub-service each.

Built by :func:`engram.wiring.build_engine` (or ``open_engine``), which is the
only place that knows the adapters behind them. Callers reach a use case
through its sub-service (``engine.chat.complete(...)``, ``engine.settings.get()``...).
The edges (REST routes, MCP tools) reach memories through ``engine.memory``, the gateway
that routes each operation to the primary backend or to libSQL (``routing.WHERE``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from engram.app.apikeys import ApiKeyService
from engram.app.chat import ChatService
from engram.app.jobs import JobService
from engram.app.maintenance import Maintenance
from engram.app.memories import MemoryService
from engram.app.qdrant_tier import QdrantService
from engram.app.retrieval import Retriever
from engram.app.routing import BackendManager, MemoryGateway
from engram.app.settings import SettingsStore
from engram.app.status import StatusService
from engram.app.vectors import VectorService
from engram.config import Config
from engram.domain.models.common import to_millis
from engram.ports import JobQueue

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
    memory: MemoryGateway = field(init=False)

    def __post_init__(self) -> None:
        self.memory = MemoryGateway(self.backends, self.memories)

    def now_ms(self) -> int:
        return to_millis(self.clock())

    def close(self) -> None:
        for close in self.closers:
            close()
