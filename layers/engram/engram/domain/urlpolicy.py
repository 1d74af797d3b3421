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
import re
import socket
from urllib.parse import SplitResult, urlsplit, urlunsplit

import idna

from engram.domain.errors import InvalidInputError

__all__ = [
    "check_endpoint_url",
    "check_host",
    "forbidden_address",
    "resolve_allowed",
    "same_origin",
]

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
# A DNS label as resolvers and HTTP clients take it (underscores too: container names).
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")


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


def _ascii_host(host: str, field: str) -> str:
    """``host`` as a client will send it: lower-case ASCII, an IDNA name in its xn-- form.
    Full-width or circled digits and letters are mapped (UTS 46, as browsers do) before
    any check, so ``１６９.２５４.１６９.２５４`` is the metadata address it spells; a
    name no client can send (an empty label, a label too long) is refused here, not by
    every later request."""
    host = host.lower().rstrip(".")
    if host.startswith("[") or ":" in host:
        return host  # IPv6: urlsplit has checked its brackets
    if not host.isascii():
        try:
            host = idna.encode(host, uts46=True).decode("ascii").lower()
        except (idna.IDNAError, UnicodeError) as exc:
            raise InvalidInputError(
                f"{field} has a host that is not a valid name", field=field
            ) from exc
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise InvalidInputError(f"{field} has a host that is not a valid name", field=field)
    return host


def check_host(host: str, field: str = "host") -> str:
    """A bare host (a name or an address, IPv6 with or without brackets) as it will be
    used, checked as the host of an endpoint URL is: never a cloud metadata service."""
    bare = host.strip()
    if ":" in bare and not bare.startswith("["):
        bare = f"[{bare}]"
    if not bare:
        return ""
    try:
        hostname = urlsplit(f"http://{bare}").hostname
    except ValueError as exc:
        raise InvalidInputError(f"{field} is not a valid host", field=field) from exc
    if not hostname:
        raise InvalidInputError(f"{field} is not a valid host", field=field)
    ascii_host = _ascii_host(hostname, field)
    _refuse_metadata(ascii_host, field)
    return f"[{ascii_host}]" if host.strip().startswith("[") else ascii_host


def _refuse_metadata(host: str, field: str) -> None:
    if host in _METADATA_HOSTS:
        raise InvalidInputError(f"{field} points at a cloud metadata service", field=field)
    literal = _literal(host)
    if literal is not None and forbidden_address(literal):
        raise InvalidInputError(f"{field} points at a cloud metadata address", field=field)


def check_endpoint_url(url: str, field: str = "customBaseUrl") -> str:
    """The URL without a trailing slash, its host in ASCII, or ``InvalidInputError``
    naming what is wrong."""
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
    host = _ascii_host(parts.hostname, field)
    _refuse_metadata(host, field)
    if host != parts.hostname:
        shown = f"[{host}]" if ":" in host else host
        netloc = shown if port is None else f"{shown}:{port}"
        return urlunsplit((parts.scheme, netloc, parts.path, "", "")).rstrip("/")
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
