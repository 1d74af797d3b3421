"""Optional remote rerank of the top candidates (``rerankEnabled``), fail-open.

Any Cohere/Jina-style endpoint: ``POST {base}/rerank`` with ``{model, query,
documents, top_n}`` answering ``{results: [{index, relevance_score}]}``. The base
URL is ``customBaseUrl`` (or the upstream's), the model ``rerankProviderModel``,
the key the embedding key (or the upstream's). On any failure the candidates keep
their order and retrieval says why: a rerank never fails a retrieval.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import httpx

from .config import Config
from .embeddings.resolve import remote_endpoint
from .embeddings.urlpolicy import check_endpoint_url
from .errors import InvalidInputError, UnavailableError
from .settings import MemorySettings

__all__ = ["RemoteReranker", "reranker_for"]

log = logging.getLogger(__name__)
RERANK_TOP = 30  # candidates sent: enough for a budget of 20, cheap to send


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
            transport=transport,
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
            raise UnavailableError(f"rerank failed ({type(exc).__name__})") from exc
        if sorted(order) != list(range(len(documents))):
            # A partial answer keeps the unranked rest after the ranked ones.
            seen = set(order)
            order = [i for i in order if 0 <= i < len(documents)]
            order += [i for i in range(len(documents)) if i not in seen]
        return order


def reranker_for(settings: MemorySettings, config: Config) -> RemoteReranker | None:
    """The reranker the settings ask for; None when off or not configured (logged)."""
    if not settings.rerank_enabled:
        return None
    endpoint = remote_endpoint(settings, config)
    if endpoint is None or not settings.rerank_provider_model:
        log.warning("rerank is enabled but needs a base URL, rerankProviderModel and a key")
        return None
    try:
        return RemoteReranker(
            endpoint.base_url, settings.rerank_provider_model, endpoint.api_key.get_secret_value()
        )
    except InvalidInputError as exc:
        log.warning("rerank endpoint refused: %s", exc.message)
        return None
