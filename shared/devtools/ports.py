"""Loopback ports for the local processes the developer tools start (sqld, llama.cpp)."""

from __future__ import annotations

import socket

__all__ = ["free_port"]


def free_port() -> int:
    """A port nothing listens on now. The OS may hand it out again before the caller
    binds it; the callers start one server each and fail loudly if the bind races."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
