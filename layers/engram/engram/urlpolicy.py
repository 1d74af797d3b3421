"""Outbound URL policy for user-configured endpoints (the remote embedder, rerank).

An endpoint must be ``http(s)``, carry no credentials and no query string or
fragment, and never point at a cloud metadata service (the classic SSRF target:
169.254.169.254 and friends), neither by name nor, once resolved, by address.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from .errors import InvalidInputError

__all__ = ["check_endpoint_url", "check_resolved_host"]

_METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.internal",
    }
)
_METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("100.100.100.200", "fd00:ec2::254", "192.0.0.192")
)


def _forbidden_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # Link-local covers 169.254.169.254 (AWS, GCP, Azure, OpenStack) and ECS's 169.254.170.2.
    return address.is_link_local or address in _METADATA_ADDRESSES


def check_endpoint_url(url: str, field: str = "customBaseUrl") -> str:
    """The URL without a trailing slash, or ``InvalidInputError`` naming what is wrong."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port  # raises on a malformed port
    except ValueError as exc:
        raise InvalidInputError(f"{field} is not a valid URL", field=field) from exc
    if parts.scheme not in ("http", "https"):
        raise InvalidInputError(f"{field} must use http or https", field=field)
    if not parts.hostname:
        raise InvalidInputError(f"{field} has no host", field=field)
    if parts.username or parts.password:
        raise InvalidInputError(f"{field} must not embed credentials", field=field)
    if parts.query or parts.fragment:
        raise InvalidInputError(f"{field} must not have a query string or fragment", field=field)
    host = parts.hostname.lower().rstrip(".")
    if host in _METADATA_HOSTS:
        raise InvalidInputError(f"{field} points at a cloud metadata service", field=field)
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None and _forbidden_address(literal):
        raise InvalidInputError(f"{field} points at a cloud metadata address", field=field)
    del port
    return url.strip().rstrip("/")


def check_resolved_host(url: str) -> None:
    """Refuse a host whose DNS answer is a metadata address (DNS rebinding)."""
    host = urlsplit(url).hostname or ""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return  # unresolvable: the request itself will fail, as a transient error
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if _forbidden_address(address):
            raise InvalidInputError("the embedding endpoint resolves to a metadata address")
