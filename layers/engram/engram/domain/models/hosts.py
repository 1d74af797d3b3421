"""The pattern of a bare host, as the API schema states it.

The schema says what ``urlpolicy.check_host`` accepts, so a client (or a fuzzer) that
writes a schema-valid host is not refused: a DNS name (labels of letters, digits, ``_``
and inner ``-``, at most 63 characters, an optional final dot), or an IPv6 address with
or without brackets, written as RFC 4291 allows. IPv6 link-local (``fe80::/10``) is
left out because the policy refuses it (it reaches the metadata service); the few
metadata names and IPv4 spellings that the policy also refuses are not expressible
here and keep their 422.
"""

from __future__ import annotations

__all__ = ["HOST_PATTERN", "MAX_HOST_CHARS", "URL_HOST_PATTERN"]

MAX_HOST_CHARS = 253  # a DNS name's limit (a final dot aside)

_HEX = "[0-9A-Fa-f]{1,4}"
# A first group that does not start fe80::/10 (fe80-febf).
_FIRST = (
    "(?:[0-9A-Fa-f]{1,3}|[0-9A-Ea-e][0-9A-Fa-f]{3}"
    "|[Ff][0-9A-Da-dFf][0-9A-Fa-f]{2}|[Ff][Ee][0-7C-Fc-f][0-9A-Fa-f])"
)
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
_LS32 = rf"(?:{_HEX}:{_HEX}|{_IPV4})"


def _groups(count: int) -> str:
    return rf"(?:{_HEX}:){{{count}}}" if count else ""


def _head(most: int) -> str:
    """Up to ``most`` + 1 leading groups before "::" (none at all is allowed)."""
    if most == 0:
        return f"(?:{_FIRST})?"
    return rf"(?:{_FIRST}(?::{_HEX}){{0,{most}}})?"


def _ipv6() -> str:
    forms = [
        rf"{_FIRST}:{_groups(5)}{_LS32}",
        rf"::{_groups(5)}{_LS32}",
        rf"{_head(0)}::{_groups(4)}{_LS32}",
        rf"{_head(1)}::{_groups(3)}{_LS32}",
        rf"{_head(2)}::{_groups(2)}{_LS32}",
        rf"{_head(3)}::{_HEX}:{_LS32}",
        rf"{_head(4)}::{_LS32}",
        rf"{_head(5)}::{_HEX}",
        rf"{_head(6)}::",
    ]
    return "(?:" + "|".join(forms) + ")"


_LABEL = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_NAME = rf"{_LABEL}(?:\.{_LABEL})*\.?"
_V6 = _ipv6()
# Empty means "no host" (Qdrant's embedded mode).
HOST_PATTERN = rf"^(?:{_NAME}|{_V6}|\[{_V6}\])?$"
# The host of a URL: a name, or IPv6 in brackets (unanchored, to sit inside a URL pattern).
URL_HOST_PATTERN = rf"(?:{_NAME}|\[{_V6}\])"
