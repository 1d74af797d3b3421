"""Recent failures of each component, for the engine status.

Many faults never reach a response: retrieval falls back to keywords when the
embedder is down, a chat goes on without memory, a background job fails. Each is
logged, and recorded here too, so ``GET /api/memory/engine-status`` shows what is
failing now (cleared by the component's next success) without reading logs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from engram.domain.models import ComponentFailure
from engram.domain.models.common import from_millis

__all__ = ["FailureLog"]


class FailureLog:
    def __init__(self, now_ms: Callable[[], int]) -> None:
        self.now_ms = now_ms
        self._lock = threading.Lock()
        self._failures: dict[str, ComponentFailure] = {}
        self._degraded = 0

    def failed(self, component: str, error: str) -> None:
        """Record a failure (the message must be safe to show: no content, no secrets)."""
        with self._lock:
            previous = self._failures.get(component)
            count = previous.count + 1 if previous else 1
            self._failures[component] = ComponentFailure(
                component=component, error=error, at=from_millis(self.now_ms()), count=count
            )

    def recovered(self, component: str, *, error_prefix: str = "") -> None:
        """Clear the component's failure (only one whose error starts with ``error_prefix``)."""
        if component in self._failures:  # cheap check first: this is on every success
            with self._lock:
                failure = self._failures.get(component)
                if failure is not None and failure.error.startswith(error_prefix):
                    del self._failures[component]

    def count_degraded(self) -> None:
        """One more retrieval answered with a part failing (its ``resolution.degraded``)."""
        with self._lock:
            self._degraded += 1

    @property
    def degraded_retrievals(self) -> int:
        """Retrievals answered with a part failing since this process started (each one
        also logged as "retrieval degraded": the template's metric and alarm count those)."""
        return self._degraded

    def current(self) -> list[ComponentFailure]:
        with self._lock:
            return sorted(self._failures.values(), key=lambda f: f.component)
