"""Any OpenAI-compatible ``/embeddings`` endpoint, over httpx.

The dimension is learnt from the first real embedding. Errors are classified
for the retry policy: rate limits, timeouts, 5xx and dropped connections are
transient (worth one retry); a missing key, a refused key or an unknown model
are not. The API key is sent in a header and never logged or echoed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from engram.adapters.embeddings.base import Vectors, normalize
from engram.adapters.guarded_http import guarded_transport, refusal
from engram.domain.errors import EmbeddingError, TransientEmbeddingError
from engram.domain.urlpolicy import check_endpoint_url

__all__ = ["RemoteEmbedder"]

_BATCH = 128


class RemoteEmbedder:
    source = "remote"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None,
        *,
        timeout_s: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not api_key:
            raise EmbeddingError("the remote embedder has no API key")
        self.base_url = check_endpoint_url(base_url)
        self.model = model
        self._dim: int | None = None
        self._client = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout_s,
            # Connections only to vetted addresses, checked as they are made (DNS rebinding).
            transport=transport or guarded_transport(),
        )

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        parts = [self._call(list(texts[i : i + _BATCH])) for i in range(0, len(texts), _BATCH)]
        return np.concatenate(parts)

    def _call(self, texts: list[str]) -> Vectors:
        try:
            response = self._client.post("/embeddings", json={"model": self.model, "input": texts})
        except httpx.TimeoutException as exc:
            raise TransientEmbeddingError("the embedding endpoint timed out") from exc
        except httpx.HTTPError as exc:
            refused = refusal(exc)
            if refused:  # not worth a retry: the address policy will refuse it again
                raise EmbeddingError(refused) from None
            raise TransientEmbeddingError(
                f"the embedding request failed ({type(exc).__name__})"
            ) from exc
        if response.status_code == 429 or response.status_code >= 500:
            raise TransientEmbeddingError(f"the embedding endpoint answered {response.status_code}")
        if response.status_code != 200:
            raise EmbeddingError(f"the embedding endpoint answered {response.status_code}")
        try:
            data: list[dict[str, Any]] = response.json()["data"]
            rows = [item["embedding"] for item in sorted(data, key=lambda d: d["index"])]
            matrix = np.asarray(rows, dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbeddingError("the embedding endpoint answered an unexpected shape") from exc
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise EmbeddingError("the embedding endpoint answered the wrong number of vectors")
        if self._dim is not None and matrix.shape[1] != self._dim:
            raise EmbeddingError("the embedding endpoint changed its dimension")
        self._dim = int(matrix.shape[1])
        return normalize(matrix)
