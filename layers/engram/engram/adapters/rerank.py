"""Optional remote rerank of the top candidates (``rerankEnabled``), fail-open.

Any Cohere/Jina-style endpoint: ``POST {base}/rerank`` with ``{model, query,
documents, top_n}`` answering ``{results: [{index, relevance_score}]}``. The base
URL is ``customBaseUrl`` (or the upstream's), the model ``rerankProviderModel``,
the key the embedding key (or the upstream's). On any failure the candidates keep
their order and retrieval says why: a rerank never fails a retrieval.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from engram.adapters.embeddings.catalog import RemoteKeys, remote_endpoint
from engram.adapters.guarded_http import guarded_transport, refusal
from engram.domain.errors import InvalidInputError, UnavailableError
from engram.domain.models import MemorySettings
from engram.domain.urlpolicy import check_endpoint_url

__all__ = ["RemoteReranker", "RerankerFactory"]

log = logging.getLogger(__name__)


class RemoteReranker:
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str,
        *,
        timeout_s: float = 5.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.model = model
        self._client = httpx.Client(
            base_url=check_endpoint_url(base_url),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout_s,
            transport=transport or guarded_transport(),
        )

    def order(self, query: str, documents: Sequence[str]) -> list[int]:
        """Indexes of ``documents``, most relevant first."""
        try:
            response = self._client.post(
                "/rerank",
                json={
                    "model": self.model,
                    "query": query,
                    "documents": list(documents),
                    "top_n": len(documents),
                },
            )
            response.raise_for_status()
            results = response.json()["results"]
            ranked = sorted(results, key=lambda r: float(r["relevance_score"]), reverse=True)
            order = [int(r["index"]) for r in ranked]
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            reason = refusal(exc) or type(exc).__name__
            raise UnavailableError(f"rerank failed ({reason})") from exc
        if sorted(order) != list(range(len(documents))):
            # A partial answer keeps the unranked rest after the ranked ones.
            seen = set(order)
            order = [i for i in order if 0 <= i < len(documents)]
            order += [i for i in range(len(documents)) if i not in seen]
        return order


class RerankerFactory:
    """The reranker the current settings ask for, built again only when they change;
    None when off or not configured (logged)."""

    def __init__(self, settings: Callable[[], MemorySettings], keys: RemoteKeys) -> None:
        self.settings = settings
        self.keys = keys
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._reranker: RemoteReranker | None = None

    def __call__(self) -> RemoteReranker | None:
        s = self.settings()
        key = (s.rerank_enabled, s.rerank_provider_model, s.custom_base_url)
        with self._lock:
            if key != self._key:
                self._key, self._reranker = key, self._build(s)
            return self._reranker

    def _build(self, settings: MemorySettings) -> RemoteReranker | None:
        if not settings.rerank_enabled:
            return None
        endpoint = remote_endpoint(settings, self.keys)
        if endpoint is None or not settings.rerank_provider_model:
            log.warning("rerank is enabled but needs a base URL, rerankProviderModel and a key")
            return None
        try:
            return RemoteReranker(
                endpoint.base_url,
                settings.rerank_provider_model,
                endpoint.api_key.get_secret_value(),
            )
        except InvalidInputError as exc:
            log.warning("rerank endpoint refused: %s", exc.message)
            return None
