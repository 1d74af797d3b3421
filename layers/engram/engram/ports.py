"""Ports: what the engine's use cases need from the outside, as Protocols.

The core (memories, retrieval, chat, vectors, settings, keys, maintenance)
depends on these and on the models only; adapters in ``engram.adapters``
implement them (libSQL, Qdrant, embedders, the reranker, the upstream, queues)
and ``engram.wiring`` plugs one into the other. A test double at the edge
implements the same Protocol.

Conventions every adapter keeps: the owner is a condition inside its own query
(tenant isolation is never a filter applied afterwards), and failures are raised
as ``EngramError`` subclasses (``StorageError``, ``UnavailableError``...), never
as a driver's own exceptions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .models import (
    ApiKey,
    ApiKeyCreated,
    EmbeddingProvider,
    ForgetOutcome,
    HealthReport,
    Job,
    Memory,
    MemoryCreate,
    MemoryForget,
    MemoryPage,
    MemoryQuery,
    MemorySettings,
    MemoryUpdate,
    MemoryVersion,
    OwnerFilter,
    QdrantHealth,
    QdrantHit,
    QdrantSettings,
    Removed,
    RetrievalRequest,
    RetrievalResult,
    UpsertOutcome,
)
from .models.facts import Extraction, ExtractionRequest, ModelReading

__all__ = [
    "ApiKeyStore",
    "BackendFactory",
    "BackendLifecycle",
    "DenseScores",
    "Embedder",
    "EmbedderCatalog",
    "EmbedderChoice",
    "EmbeddingCache",
    "ExtractionModel",
    "Extractor",
    "ExtractorUsage",
    "FactHistory",
    "JobLedger",
    "JobQueue",
    "MaintenanceStore",
    "MemoryBackend",
    "MemoryStore",
    "PendingVector",
    "PointStore",
    "PointStoreFactory",
    "RankingRows",
    "Reranker",
    "RetrievalStats",
    "SearchIndex",
    "SettingsDocuments",
    "StorageInfo",
    "UnitOfWork",
    "Upstream",
    "UpstreamResponse",
    "VectorMeta",
    "VectorRows",
    "VectorTier",
    "Vectors",
]

Vectors = npt.NDArray[np.float32]


# -- transactions ---------------------------------------------------------------------


class UnitOfWork(Protocol):
    """Groups writes of several stores into one all-or-nothing transaction.

    Re-entrant: a transaction opened inside another joins it.
    """

    def transaction(self) -> AbstractContextManager[object]: ...


class StorageInfo(Protocol):
    def schema_version(self) -> int: ...

    @property
    def is_remote(self) -> bool: ...


# -- memories ---------------------------------------------------------------------------


class MemoryStore(Protocol):
    """Memory rows: writes and management reads. ``owner=None`` spans every owner (the
    management API's own choice, made explicitly)."""

    def upsert(
        self, item: MemoryCreate, key: str, now_ms: int, *, supersede: bool = False
    ) -> UpsertOutcome: ...

    def upsert_many(
        self, items: Sequence[tuple[MemoryCreate, str]], now_ms: int
    ) -> list[UpsertOutcome]:
        """``upsert`` for each (item, key), in one transaction, in few round trips."""
        ...

    def update(
        self, memory_id: str, owner: str | None, changes: MemoryUpdate, now_ms: int
    ) -> tuple[Memory, bool] | None: ...

    def delete(self, memory_id: str, owner: str | None, now_ms: int) -> Removed: ...

    def get(self, memory_id: str, owner: str | None, now_ms: int | None) -> Memory | None: ...

    def list_page(
        self, query: MemoryQuery, now_ms: int
    ) -> tuple[list[Memory], int, dict[str, int]]: ...

    def export_batch(
        self, owner: str | None, after: tuple[int, int] | None, now_ms: int, limit: int
    ) -> list[tuple[Memory, tuple[int, int]]]: ...

    def totals(self, owner: str | None, now_ms: int) -> tuple[int, int]: ...


class MemoryBackend(Protocol):
    """Where memories live (SPEC section 8): libSQL (the default, whose search is Engram's
    whole hybrid retrieval) or a remote store (a REST API, Obsidian, Notion).

    ``owner=None`` spans every owner (the management API's explicit choice); otherwise
    the owner is a condition of the backend's own query, and a remote backend also
    checks the owner of every record it is answered before returning it. ``get``,
    ``update`` and ``delete`` answer None/False for a missing memory; every failure is
    an ``EngramError`` (``BackendError`` for a remote one), never a driver's exception.
    ``search`` returns the ranked memories for a retrieval, each remote result with
    tier ``backend``; the caller fits them to the token budget.
    """

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str:
        """libsql, http, obsidian or notion."""
        ...

    def create(self, item: MemoryCreate) -> UpsertOutcome:
        """Store ``item`` (already redacted); an existing (owner, key) is updated."""
        ...

    def get(self, memory_id: str, owner: str | None) -> Memory | None: ...

    def update(self, memory_id: str, owner: str | None, changes: MemoryUpdate) -> Memory | None: ...

    def delete(self, memory_id: str, owner: str | None) -> bool: ...

    def list_page(self, query: MemoryQuery) -> MemoryPage: ...

    def search(
        self, api_key_id: str, request: RetrievalRequest, *, read_only: bool
    ) -> RetrievalResult: ...

    def health(self) -> HealthReport: ...


@runtime_checkable
class BackendLifecycle(Protocol):
    """The optional start and end of a backend (a connection to open, a client to close)."""

    def initialize(self) -> None: ...

    def shutdown(self) -> None: ...


# Builds a remote backend from its name and stored configuration (``backendConfigs``).
BackendFactory = Callable[[str, Mapping[str, Any]], MemoryBackend]


class FactHistory(Protocol):
    """Facts retired by later statements, and forgetting a key's memories with them."""

    def retire(
        self, memory_id: str, owner: str, now_ms: int, *, superseded_by: str | None = None
    ) -> Removed: ...

    def live_about(
        self, owner: str, subject: str, categories: tuple[str, ...], source: str
    ) -> list[Memory]: ...

    def versions(self, memory_id: str, owner: str | None) -> list[MemoryVersion] | None: ...

    def forget(self, request: MemoryForget, now_ms: int) -> tuple[ForgetOutcome, Removed]: ...


class JobLedger(Protocol):
    """Queue jobs already processed (idempotency of redelivered messages)."""

    def seen(self, job_id: str) -> bool: ...

    def mark(self, job_id: str, kind: str, now_ms: int) -> None: ...


class RetrievalStats(Protocol):
    def record(self, owner: str, hit: bool, now_ms: int) -> None: ...

    def counts(self, owner: str | None) -> tuple[int, int]:
        """(retrievals, retrievals that found something)."""
        ...


@dataclass(frozen=True)
class RankingRows:
    """The rows a ranking loads at its end, read together (one round trip to a server)."""

    memories: list[Memory]
    # Read ahead for a ranking that comes up short: most never look at it, so an
    # adapter may build these memories on first use.
    recent: Sequence[Memory]
    profile: list[Memory]


class SearchIndex(Protocol):
    """Reads for retrieval. Keyword methods take the user's text as is: turning it into
    the index's query syntax (and keeping it from being syntax) is the adapter's job.
    They return nothing for text without content words and raise ``StorageError``
    when the index fails."""

    def available(self) -> bool: ...

    def read_scope(self) -> AbstractContextManager[None]:
        """One retrieval's reads: inside it, an owner's state (its version) is read once
        and shared by the reads that need it (each a round trip to a server). Writes made
        elsewhere meanwhile need not be seen; the scope's own writes are."""
        ...

    def get_many(
        self, ids: list[str], who: OwnerFilter, now_ms: int, cutoff_ms: int
    ) -> list[Memory]: ...

    def keyword_search(
        self, text: str, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int
    ) -> list[tuple[Memory, float]]:
        """Live memories matching ``text``, best first, with their BM25 (lower is better)."""
        ...

    def keyword_scores(self, text: str, who: OwnerFilter, limit: int) -> list[tuple[int, float]]:
        """(row seq, BM25) of the best matches, unfiltered by expiry (fusion filters)."""
        ...

    def recent(self, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int) -> list[Memory]: ...

    def get_many_with_context(
        self,
        ids: list[str],
        who: OwnerFilter,
        now_ms: int,
        cutoff_ms: int,
        recent_limit: int,
        profile_limit: int,
        seqs: Sequence[int] = (),
    ) -> RankingRows:
        """``get_many``, ``recent`` and ``profile`` at once; the rows of ``ids`` and
        those whose row seq is in ``seqs`` (what the vector index knows: one index walk
        fewer per row than the id)."""
        ...

    def mentions(self, who: OwnerFilter, terms: list[str]) -> set[str]:
        """Which of ``terms`` (words) any of ``who``'s memories contains."""
        ...

    def profile(self, who: OwnerFilter, now_ms: int, cutoff_ms: int, limit: int) -> list[Memory]:
        """Live profile memories (``models.profile``: by category, or pinned), newest
        first."""
        ...


class ApiKeyStore(Protocol):
    def create(self, name: str, now_ms: int) -> ApiKeyCreated: ...

    def all(self) -> list[ApiKey]: ...

    def get(self, key_id: str) -> ApiKey | None: ...

    def revoke(self, key_id: str, now_ms: int) -> ApiKey | None: ...

    def authenticate(self, secret: str, now_ms: int) -> ApiKey | None: ...


class SettingsDocuments(Protocol):
    """One JSON document per namespace (``memory``, ``qdrant``)."""

    def load(self, namespace: str) -> str | None: ...

    def save(self, namespace: str, value: str, now_ms: int) -> None: ...


class MaintenanceStore(Protocol):
    def newest_first(self, owner: str, session_id: str | None) -> list[Memory]:
        """The owner's memories (of one session, when given), last written first."""
        ...

    def older_than(self, cutoff_ms: int, owner: str | None) -> list[Memory]:
        """Memories last written before the cut-off, summaries aside, oldest first per
        owner."""
        ...

    def cleanup_counts(self, now_ms: int, retention_ms: int, old_ms: int) -> dict[str, int]: ...

    def removable(self, now_ms: int, retention_ms: int) -> list[tuple[str, str]]:
        """(id, owner) of memories expired or past retention (global ones never are)."""
        ...

    def purge_bookkeeping(self, old_ms: int) -> None: ...


# -- vectors ----------------------------------------------------------------------------


class Embedder(Protocol):
    """Texts -> unit-length float32 vectors, one row per text.

    ``source`` / ``model`` / ``dim`` form the embedding signature: vectors of two
    signatures are never compared. Failures raise ``EmbeddingError`` (retry once
    only when it is a ``TransientEmbeddingError``).
    """

    @property
    def source(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


@runtime_checkable
class EmbeddingCache(Protocol):
    """An embedder that keeps vectors of texts it has seen, and can drop them."""

    def forget(self, texts: Sequence[str]) -> int:
        """Drop the cached vectors of ``texts``; how many were cached."""
        ...


@dataclass(frozen=True)
class EmbedderChoice:
    """The embedder the settings resolve to, or None and why not.

    ``source`` is the source the settings choose (``MemorySettings.chosen_embedding_source``)
    whether or not this process could build it: an ``embedder`` of None with a
    ``source`` means the configured embedder is unavailable here; without a ``source``,
    no embedding source is enabled at all.
    """

    embedder: Embedder | None
    reason: str | None = None
    source: str | None = None

    @property
    def unavailable(self) -> bool:
        """The settings choose an embedder this process cannot build."""
        return self.embedder is None and self.source is not None


class EmbedderCatalog(Protocol):
    """Which embedders exist here and which one settings select (SPEC section 6)."""

    def resolve(self, settings: MemorySettings) -> EmbedderChoice:
        """The embedder of ``settings.chosen_embedding_source()``, never another one."""
        ...

    def providers(self, settings: MemorySettings) -> list[EmbeddingProvider]: ...


@dataclass(frozen=True)
class PendingVector:
    seq: int
    owner: str
    content: str


@dataclass(frozen=True)
class VectorMeta:
    """The embedding the stored vectors belong to."""

    dim: int | None = None
    signature: str | None = None
    last_reset_at: int | None = None


class VectorRows(Protocol):
    """Vectors stored beside their rows, and the bookkeeping of which still need one."""

    def pending(
        self, owner: str | None, limit: int, ids: Sequence[str] | None = None
    ) -> list[PendingVector]:
        """Memories waiting for a vector (one owner, or all; only those of ``ids`` when
        given), oldest first."""
        ...

    def pending_count(self, owner: str | None = None) -> int: ...

    def observed_version(self, owner: str) -> int:
        """The owner's write version (it moves with every write to its memories), read
        once per ``SearchIndex.read_scope``."""
        ...

    def counts(self) -> tuple[int, int]:
        """(memories, memories waiting for a vector)."""
        ...

    def store(self, items: list[tuple[PendingVector, Vectors]], int8: bool) -> list[int]:
        """Store vectors of rows whose content is still what was embedded; the seqs written."""
        ...

    def memories(self, seqs: list[int]) -> list[tuple[int, Memory]]:
        """(seq, memory) of the given rows (maintenance: any owner)."""
        ...

    def embedded_after(
        self, seq: int, limit: int, dim: int
    ) -> list[tuple[int, Memory, Vectors | None]]:
        """Memories with a current vector after ``seq`` and that vector (None when it is not
        of dimension ``dim``), in seq order: a backfill's cursor."""
        ...

    def embedded(
        self, owner: str, ids: Sequence[str], dim: int
    ) -> list[tuple[int, Memory, Vectors | None]]:
        """Those of the owner's memories ``ids`` that have a current vector, with it (None
        when it is not of dimension ``dim``)."""
        ...

    def embedded_count(self) -> int: ...

    def owners(self) -> list[str]: ...

    def meta(self) -> VectorMeta: ...

    def reset(self, signature: str, dim: int, now_ms: int) -> int:
        """A new embedding: every vector is stale. Returns how many rows need one."""
        ...

    def mark_all_pending(self) -> int: ...


@dataclass(frozen=True)
class DenseScores:
    """Cosine similarity of the query to every memory of the owners.

    ``sims`` is -inf where a memory may not be returned (expired, past retention,
    another session, no vector yet), so arrays are shared with the index, not copied.
    """

    ids: Sequence[str]
    sims: npt.NDArray[np.float32]
    position: Mapping[str, int]  # id -> index into ids / sims
    speaker_masks: Mapping[str, npt.NDArray[np.bool_]]  # metadata.speaker -> its rows
    seq_position: Mapping[int, int] = field(default_factory=dict)  # row seq -> index
    seqs: Sequence[int] = ()  # index -> row seq, when the store knows it
    # False when only the nearest few are scored (Qdrant): fusion then cannot treat an
    # unscored memory as "not allowed", and takes keyword rows as candidates too.
    complete: bool = True

    def top(self, k: int) -> list[tuple[str, float]]:
        allowed = int(np.count_nonzero(np.isfinite(self.sims)))
        k = min(k, allowed)
        if k <= 0:
            return []
        part = np.argpartition(-self.sims, k - 1)[:k]
        part = part[np.argsort(-self.sims[part], kind="stable")]
        return [(self.ids[i], float(self.sims[i])) for i in part]


class VectorTier(Protocol):
    """A store that scores the owners' memories against a query vector."""

    @property
    def store(self) -> str:
        """Which store answers: ``libsql`` or ``qdrant``."""
        ...

    def dense(
        self, query: Vectors, who: OwnerFilter, now_ms: int, cutoff_ms: int
    ) -> DenseScores: ...


class PointStore(Protocol):
    """A vector database holding one point per memory (Qdrant)."""

    def upsert(self, points: Sequence[tuple[str, Sequence[float], dict[str, Any]]]) -> None: ...

    def delete(self, memory_ids: Sequence[str]) -> None: ...

    def search(
        self,
        vector: Sequence[float],
        owners: Sequence[str],
        session_id: str | None,
        top_k: int,
        now_unix: float,
        cutoff_unix: float,
    ) -> list[QdrantHit]: ...

    def count(self) -> int: ...

    def cleanup(self, now_unix: float, cutoff_unix: float, dry_run: bool = False) -> int: ...

    def health(self) -> QdrantHealth: ...

    def close(self) -> None: ...


# Builds the store for the current Qdrant settings (again whenever they change).
PointStoreFactory = Callable[[QdrantSettings], PointStore]


class Reranker(Protocol):
    def order(self, query: str, documents: Sequence[str]) -> list[int]:
        """Indexes of ``documents``, most relevant first; ``EngramError`` on failure."""
        ...


# -- the edges of a chat ------------------------------------------------------------------


class UpstreamResponse(Protocol):
    """A response of the chat provider, not yet read (streamed, or read whole)."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def is_success(self) -> bool: ...

    def aiter_raw(self) -> AsyncIterator[bytes]: ...

    async def aread(self) -> bytes: ...

    async def aclose(self) -> None: ...


class Upstream(Protocol):
    """The OpenAI-compatible chat provider. ``UpstreamError`` when unreachable,
    ``UpstreamTimeout`` when slow, ``UnavailableError`` when none is configured."""

    async def send(self, method: str, path: str, json: Any = None) -> UpstreamResponse: ...


# -- learning -----------------------------------------------------------------------------


class Extractor(Protocol):
    """Reads the turns of one exchange and says what each teaches (``learning`` applies
    it): the rules, a model, or both (``settings.extractor``).

    ``extract`` returns one ``Extraction`` per turn of the request, in order. It runs
    outside any transaction and any lock: a slow extractor delays only its own job. It
    never raises for what it was given to read: an extractor that cannot read a turn
    (a model that failed, answered late or answered nonsense) returns nothing for it,
    logs and counts that, and the job goes on. ``reconciles`` says whether it wants the
    owner's closest facts in the request (``ExtractionRequest.known``) to decide what a
    new statement adds, updates or retires. Turns arrive as queued (redacted by whoever
    queued them); an extractor redacts what it reads again before reading or sending it
    anywhere, so a secret never becomes a fact whatever produced the job.
    """

    def extract(self, request: ExtractionRequest) -> list[Extraction]: ...

    def reconciles(self) -> bool: ...


class ExtractionModel(Protocol):
    """A language model that reads turns for facts (the LLM extractor's endpoint).

    ``read`` sends the request (the turns as data, their context, the known facts) to
    ``model`` at ``base_url`` (the upstream's when None) and returns what it read, checked
    against the schema. ``UnavailableError`` when the model cannot be reached, answers
    an error or answers late; ``ModelOutputError`` when what it answers is not the
    schema. ``estimate`` is the tokens a request would cost before sending it."""

    def read(
        self, request: ExtractionRequest, model: str, base_url: str | None
    ) -> ModelReading: ...

    def estimate(self, request: ExtractionRequest) -> int: ...

    def close(self) -> None: ...


class ExtractorUsage(Protocol):
    """What the LLM extractor spent, per owner and UTC day (``YYYY-MM-DD``), in tokens."""

    def spent(self, owner: str, day: str) -> int: ...

    def add(self, owner: str, day: str, tokens: int) -> None: ...


class JobQueue(Protocol):
    """Where jobs go to be processed off the request path (SQS, or in process).

    ``send`` must not block on processing; it raises ``EngramError`` when the job
    could not be queued (callers on the chat path log it and carry on).
    """

    def send(self, job: Job) -> None: ...
