"""Ports at the edges of a chat: the upstream model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol

__all__ = [
    "Upstream",
    "UpstreamResponse",
]


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
