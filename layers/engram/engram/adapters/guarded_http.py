"""httpx clients for user-configured endpoints, connecting only to vetted addresses.

Checking a URL's host before a request is not enough: httpx resolves the name
again when it connects, and a hostile DNS server can answer a safe address to the
check and a metadata address to the connection (DNS rebinding). Here the check is
the connection: the network backend resolves the name itself, refuses it if any
answer is a metadata address (``engram.domain.urlpolicy``), and connects to an address
it vetted. TLS still verifies the certificate against the name (httpcore passes
the original host as the server name).
"""

from __future__ import annotations

import typing

import httpcore
import httpx

from engram.domain.errors import InvalidInputError
from engram.domain.urlpolicy import resolve_allowed

__all__ = ["EndpointRefused", "guarded_transport", "refusal"]


class EndpointRefused(httpcore.ConnectError):
    """The endpoint resolves to an address Engram never connects to."""


class _VettedBackend(httpcore.SyncBackend):
    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            addresses = resolve_allowed(host, port)
        except InvalidInputError as exc:
            raise EndpointRefused(exc.message) from None
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}") from exc
        last: Exception | None = None
        for address in addresses:
            try:
                return super().connect_tcp(
                    address, port, timeout, local_address, socket_options=socket_options
                )
            except httpcore.ConnectError as exc:
                last = exc
        raise last or httpcore.ConnectError(f"no address for {host}")


def guarded_transport(*, verify: bool = True) -> httpx.HTTPTransport:
    """An ``HTTPTransport`` whose connections go only to vetted addresses. (httpx takes no
    network backend as an argument; its connection pool does, so the pool is replaced.)
    ``verify=False`` accepts any certificate (Obsidian's self-signed one, by choice)."""
    transport = httpx.HTTPTransport(trust_env=False)
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(verify=verify, trust_env=False),
        network_backend=_VettedBackend(),
    )
    return transport


def refusal(exc: BaseException) -> str | None:
    """Why a failed request was refused by the address policy, or None (another failure)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, EndpointRefused):
            return str(cause)
        cause = cause.__cause__ or cause.__context__
    return None
