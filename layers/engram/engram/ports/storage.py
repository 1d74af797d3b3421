"""Ports of storage: transactions, memories, their history, keys, settings and
maintenance, and the remote memory backends."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from engram.domain.models import (
    ApiKey,
    ApiKeyCreated,
    ApiKeyRecord,
    ForgetOutcome,
    HealthReport,
    Memory,
    MemoryCreate,
    MemoryForget,
    MemoryPage,
    MemoryQuery,
    MemoryUpdate,
    MemoryVersion,
    OwnerFilter,
    Removed,
    RetrievalRequest,
    RetrievalResult,
    UpsertOutcome,
)

__all__ = [
    "ApiKeyStore",
    "BackendFactory",
    "BackendLifecycle",
    "FactHistory",
    "JobLedger",
    "MaintenanceStore",
    "MemoryBackend",
    "MemoryStore",
    "RankingRows",
    "RetrievalStats",
    "SearchIndex",
    "SettingsDocuments",
    "StorageInfo",
    "UnitOfWork",
]


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

    def records(self) -> list[ApiKeyRecord]:
        """Every key with the hash of its secret, for another instance."""
        ...

    def restore(
        self, record: ApiKeyRecord
    ) -> Literal["created", "unchanged", "revoked", "conflict"]:
        """Add ``record`` unless its id or its secret is already here (then say which); a
        revocation in ``record`` is applied to the same key here, never undone."""
        ...


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
