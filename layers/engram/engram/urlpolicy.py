"""Outbound URL policy for user-configured endpoints (the remote embedder, rerank).

An endpoint must be ``http(s)``, carry no credentials and no query string or
fragment, and never reach a cloud metadata service (the classic SSRF target:
169.254.169.254 and friends): not by name, not by address in any spelling
(IPv4-mapped IPv6, NAT64, 6to4, Teredo, integer or hex forms), and not through
DNS (every address a name resolves to is checked, by the adapter that connects,
at connection time: a name cannot resolve to a safe address for the check and to
a metadata address for the request).
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import SplitResult, urlsplit

from .errors import InvalidInputError

__all__ = ["check_endpoint_url", "forbidden_address", "resolve_allowed", "same_origin"]

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
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address reaches through a translation mechanism."""
    found = []
    if address.ipv4_mapped is not None:
        found.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.append(address.teredo[1])
    if address in _NAT64 or address in _NAT64_LOCAL:
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def forbidden_address(address: Address) -> bool:
    """A metadata service's address, however written."""
    candidates: list[Address] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        candidates += _embedded_ipv4(address)
    # Link-local covers 169.254.169.254 (AWS, GCP, Azure, OpenStack) and ECS's 169.254.170.2.
    return any(a.is_link_local or a in _METADATA_ADDRESSES for a in candidates)


def _literal(host: str) -> Address | None:
    """``host`` as an address if it spells one: dotted, IPv6, or the integer and hex forms
    that C resolvers accept (``2852039166``, ``0xa9fea9fe``, ``0251.0376.0251.0376``)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    try:
        packed = socket.inet_aton(host)  # the BSD parser: integer, hex, octal, short forms
    except OSError:
        return None
    return ipaddress.IPv4Address(packed)


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
    literal = _literal(host)
    if literal is not None and forbidden_address(literal):
        raise InvalidInputError(f"{field} points at a cloud metadata address", field=field)
    del port
    return url.strip().rstrip("/")


def resolve_allowed(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, every one of them allowed, or
    ``InvalidInputError`` when any is a metadata address (a name that can resolve to
    one is refused outright, whichever answer comes first)."""
    literal = _literal(host.strip("[]"))
    if literal is not None:
        if forbidden_address(literal):
            raise InvalidInputError("the endpoint is a cloud metadata address")
        return [str(literal)]
    if host.lower().rstrip(".") in _METADATA_HOSTS:
        raise InvalidInputError("the endpoint is a cloud metadata service")
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if forbidden_address(address):
            raise InvalidInputError("the endpoint resolves to a cloud metadata address")
        addresses.append(str(address))
    return list(dict.fromkeys(addresses))


def _origin(parts: SplitResult) -> tuple[str, str, int | None]:
    scheme = parts.scheme.lower()
    default = {"http": 80, "https": 443}.get(scheme)
    return scheme, (parts.hostname or "").lower().rstrip("."), parts.port or default


def same_origin(url: str, other: str | None) -> bool:
    """Whether two URLs share scheme, host and port (where a credential may be sent)."""
    if not other:
        return False
    return _origin(urlsplit(url)) == _origin(urlsplit(other))
