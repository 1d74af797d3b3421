"""How long one request may wait on a database server, in all, and a breaker for a
server that stopped answering.

``ENGRAM_DB_TIMEOUT_S`` bounded each round trip: a request of six round trips against a
black-holed server answered 503 after 60 s, and the next one waited 20 s behind a
background job holding the connection (issue 33). Now a request's round trips share
one budget of ``ENGRAM_DB_TIMEOUT_S``: the HTTP layer opens it per request
(``database_budget``), and each round trip takes what it spent from it. Nothing waits
for the connection any more: each thread's stream is its own (``hrana``).
Work outside a request (the in-process queue, schedules) has none and keeps the
per-round-trip bound.

After ``TRIPS`` round trips in a row that timed out or found the server unreachable,
the breaker opens: for ``OPEN_S`` every round trip fails at once (503 without waiting),
then one is let through; its success closes the breaker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from engram.domain.errors import StorageError

__all__ = ["OPEN_S", "TRIPS", "Breaker", "database_budget", "remaining", "spend"]

TRIPS = 3
OPEN_S = 5.0
# The breaker's clock: tests move it on rather than wait out OPEN_S.
breaker_clock: Callable[[], float] = time.monotonic


@dataclass
class _Budget:
    left: float


_budget: ContextVar[_Budget | None] = ContextVar("engram_database_budget", default=None)


@contextmanager
def database_budget(seconds: float) -> Iterator[None]:
    """Every database wait inside the block (a thread pool's copy of the context too)
    draws on one budget of ``seconds``."""
    token = _budget.set(_Budget(seconds))
    try:
        yield
    finally:
        _budget.reset(token)


def remaining(bound: float) -> float:
    """How long the next wait may take: ``bound``, or less when the request's budget has
    less left; a spent budget is a StorageError (503) before anything is sent."""
    budget = _budget.get()
    if budget is None:
        return bound
    if budget.left <= 0:
        raise StorageError("the request's database time (ENGRAM_DB_TIMEOUT_S) is spent")
    return min(bound, budget.left)


def spend(seconds: float) -> None:
    budget = _budget.get()
    if budget is not None:
        budget.left -= seconds


class Breaker:
    """One connection's breaker (a process's connection to its server, and the sibling
    that builds keyword postings, each have theirs)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures = 0
        self._open_until = 0.0

    def check(self) -> None:
        with self._lock:
            wait = self._open_until - breaker_clock()
            if wait > 0:
                raise StorageError(
                    f"the database did not answer {self._failures} times in a row:"
                    f" not tried again for {wait:.1f} s"
                )
            if self._failures >= TRIPS:
                # Half open: this one goes through; should it fail, the breaker reopens.
                self._open_until = breaker_clock() + OPEN_S

    def failed(self) -> None:
        with self._lock:
            self._failures += 1
            if self._failures >= TRIPS:
                self._open_until = breaker_clock() + OPEN_S

    def succeeded(self) -> None:
        if self._failures:
            with self._lock:
                self._failures, self._open_until = 0, 0.0
