"""The upstream OpenAI-compatible provider, over httpx (the ``Upstream`` port).

One ``AsyncClient`` (and so one connection pool) per event loop: the local server
has one loop; Mangum reuses its loop across invocations of a warm Lambda.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from engram.domain.errors import UnavailableError, UpstreamError, UpstreamTimeout

__all__ = ["HttpUpstream", "MissingUpstream"]


class MissingUpstream:
    """No provider configured: every chat answers 503 saying what to set."""

    async def send(self, method: str, path: str, json: Any = None) -> httpx.Response:
        raise UnavailableError("no upstream provider: set ENGRAM_UPSTREAM_BASE_URL")


class HttpUpstream:
    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout_s: float = 120.0,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = httpx.Timeout(timeout_s, connect=connect_timeout_s)
        self._clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            for stale in [known for known in self._clients if known.is_closed()]:
                del self._clients[stale]
            client = self._clients[loop] = httpx.AsyncClient(
                base_url=self.base_url,
                headers=self._headers,
                timeout=self._timeout,
            )
        return client

    async def send(self, method: str, path: str, json: Any = None) -> httpx.Response:
        """The upstream's response, not yet read (the caller streams or reads it)."""
        client = self._client()
        request = client.build_request(method, path, json=json)
        try:
            return await client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise UpstreamTimeout("the upstream provider did not answer in time") from exc
        except httpx.HTTPError as exc:
            raise UpstreamError(
                f"the upstream provider is unreachable ({type(exc).__name__})"
            ) from exc
