"""Local server processes the developer tools and tests start (sqld, llama.cpp, the
scripted model, ``engram serve``): a free loopback port, and a stop that cannot hang."""

from __future__ import annotations

import socket
import subprocess
import time
from typing import Any

import httpx

__all__ = ["answering", "free_port", "stop"]


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


def answering(
    url: str,
    process: subprocess.Popen[Any],
    seconds: float,
    *,
    every: float = 0.1,
    request_timeout: float = 1.0,
    headers: dict[str, str] | None = None,
) -> bool:
    """Whether a GET of ``url`` succeeds before ``seconds`` pass, asked every ``every``
    seconds; False as soon as ``process`` has exited (the caller says why it gave up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            if httpx.get(url, headers=headers, timeout=request_timeout).is_success:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(every)
    return False
