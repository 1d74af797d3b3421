"""Local server processes the developer tools and tests start (sqld, llama.cpp, the
scripted model, ``engram serve``): a free loopback port, and a stop that cannot hang."""

from __future__ import annotations

import socket
import subprocess
from typing import Any

__all__ = ["free_port", "stop"]


def free_port() -> int:
    """A port nothing listens on now. The OS may hand it out again before the caller
    binds it; the callers start one server each and fail loudly if the bind races."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop(process: subprocess.Popen[Any], timeout: float = 10.0) -> None:
    """Asks ``process`` to end (SIGTERM), and kills it if it has not within ``timeout``."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
