"""What every remote memory backend shares: one bounded httpx client per backend,
connecting only to vetted addresses, with failures turned into ``BackendError``.

Error messages name the backend, the operation and the status, never a credential
and never the remote body (which could quote one back). Redirects are not followed:
a backend that answers 3xx is misconfigured, and a credential never follows one.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import httpx

from engram.adapters.guarded_http import guarded_transport, refusal
from engram.domain.errors import BackendError
from engram.domain.models import (
    HealthReport,
    Memory,
    MemoryPage,
    MemoryQuery,
    Resolution,
    RetrievalRequest,
    RetrievalResult,
    RetrievedMemory,
    Strategy,
)
from engram.domain.models.common import MemoryType
from engram.domain.tokens import estimate_tokens

__all__ = [
    "JsonClient",
    "as_datetime",
    "as_memory",
    "page_of",
    "remote_result",
    "type_counts",
    "visible",
]


class JsonClient:
    def __init__(
        self,
        name: str,
        base_url: str,
        *,
        headers: Mapping[str, str],
        timeout_s: float,
        verify: bool = True,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.name = name
        self.timeout_s = timeout_s
        self._client = httpx.Client(
            base_url=base_url,
            headers=dict(headers),
            timeout=timeout_s,
            follow_redirects=False,
            transport=transport or guarded_transport(verify=verify),
        )

    def request(
        self,
        operation: str,
        method: str,
        path: str,
        *,
        params: list[tuple[str, str]] | None = None,
        json: Any = None,
        content: str | None = None,
        headers: Mapping[str, str] | None = None,
        missing_ok: bool = False,
    ) -> httpx.Response | None:
        """The response, None for a 404 when ``missing_ok``; ``BackendError`` otherwise."""
        try:
            response = self._client.request(
                method, path, params=list(params or []), json=json, content=content, headers=headers
            )
        except httpx.TimeoutException:
            raise BackendError(
                f"{self.name} did not answer {operation} within {self.timeout_s:g} s"
            ) from None
        except httpx.HTTPError as exc:
            refused = refusal(exc)
            reason = refused or type(exc).__name__
            raise BackendError(f"{self.name} is unreachable ({operation}): {reason}") from None
        if response.status_code == 404 and missing_ok:
            return None
        if response.status_code >= 300:
            raise BackendError(f"{self.name} answered {operation} with {response.status_code}")
        return response

    def json(self, operation: str, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise BackendError(f"{self.name} answered {operation} with malformed JSON") from None

    def probe(
        self,
        method: str,
        path: str,
        check: Callable[[httpx.Response], str | None] | None = None,
    ) -> HealthReport:
        """One timed request; ``check(response)`` returns an error or None."""
        started = time.perf_counter()
        error: str | None = None
        try:
            response = self.request("health", method, path)
            assert response is not None
            if check is not None:
                error = check(response)
        except BackendError as exc:
            error = exc.message
        latency = round((time.perf_counter() - started) * 1000, 3)
        return HealthReport(working=error is None, latency_ms=latency, error=error)

    def close(self) -> None:
        self._client.close()


def as_datetime(value: Any) -> datetime | None:
    """An ISO 8601 string or epoch milliseconds, as a UTC datetime; None if neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value / 1000, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return None


def as_memory(
    *,
    memory_id: Any,
    owner: Any,
    content: Any,
    key: Any = None,
    type_: Any = None,
    session_id: Any = None,
    metadata: Any = None,
    created_at: Any = None,
    updated_at: Any = None,
    expires_at: Any = None,
) -> Memory | None:
    """A memory from a remote record, or None when it lacks an id, an owner or content
    (a record whose owner cannot be read is never returned to anyone)."""
    if not isinstance(memory_id, str | int) or isinstance(memory_id, bool):
        return None
    if not isinstance(owner, str) or not owner or not isinstance(content, str):
        return None
    now = datetime.now(UTC)
    created = as_datetime(created_at) or now
    try:
        kind = MemoryType(type_) if isinstance(type_, str) else MemoryType.FACTUAL
    except ValueError:
        kind = MemoryType.FACTUAL
    return Memory.model_construct(
        id=str(memory_id),
        api_key_id=owner,
        session_id=session_id if isinstance(session_id, str) and session_id else None,
        type=kind,
        key=key if isinstance(key, str) and key else str(memory_id),
        content=content,
        metadata=metadata if isinstance(metadata, dict) else {},
        created_at=created,
        updated_at=as_datetime(updated_at) or created,
        expires_at=as_datetime(expires_at),
    )


def type_counts(memories: Sequence[Memory]) -> dict[str, int]:
    """How many of ``memories`` there are of each type (a page's ``byType``)."""
    return dict(Counter(m.type.value for m in memories))


def page_of(memories: list[Memory], query: MemoryQuery) -> MemoryPage:
    """The page ``query`` asks for out of every memory that matches it (backends whose
    remote API cannot page by itself read all matches, then slice)."""
    start = query.effective_offset
    return MemoryPage(
        data=memories[start : start + query.limit],
        total=len(memories),
        page=query.effective_page,
        limit=query.limit,
        offset=start,
        by_type=type_counts(memories),
    )


def visible(memory: Memory, owners: Sequence[str], session_id: str | None) -> bool:
    """Whether a search may return ``memory``: its owner asked, its session if narrowed,
    not expired."""
    if memory.api_key_id not in owners:
        return False
    if session_id is not None and memory.session_id != session_id:
        return False
    return memory.expires_at is None or memory.expires_at > datetime.now(UTC)


def remote_result(
    name: str, hits: Sequence[tuple[Memory, float]], request: RetrievalRequest
) -> RetrievalResult:
    """Hits of a remote search, best first, as a retrieval result (tier ``backend``); the
    caller fits it to the token budget."""
    ordered = sorted(hits, key=lambda hit: hit[1], reverse=True)[: request.limit]
    results = [
        RetrievedMemory.model_construct(
            **dict(memory),
            score=score,
            tier="backend",
            tokens=estimate_tokens(memory.content),
            fts_score=None,
            vec_score=None,
            keyword_coverage=None,
        )
        for memory, score in ordered
    ]
    resolution = Resolution(
        strategy=request.strategy or Strategy.HYBRID,
        keyword_tier="backend",
        embedding_source=None,
        vector_store=None,
        fallback=False,
        reason=None,
        backend=name,
    )
    used = sum(r.tokens for r in results)
    return RetrievalResult(
        results=results, tokens_used=used, recall_tokens=used, resolution=resolution
    )
