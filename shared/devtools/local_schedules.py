"""The schedules of template.yaml, run on a timer by the local server.

Same jobs as the EventBridge-scheduled functions: reindex batches every 5 minutes,
cleanup hourly, summarization daily (acting only when ``autoSummarize`` is on).
``run_due`` is deterministic (tests drive it with their own clock); ``start`` runs it
in a daemon thread. A failing job is logged and tried again at its next slot.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from engram import Engine

__all__ = ["Job", "LocalSchedules", "default_jobs"]

log = logging.getLogger("engram.schedules")


@dataclass
class Job:
    name: str
    every_s: float
    run: Callable[[Engine], object]
    next_at: float = 0.0


def default_jobs() -> list[Job]:
    return [
        Job("reindex", 300, lambda engine: engine.vectors.reindex(max_seconds=30)),
        Job("cleanup", 3600, lambda engine: engine.maintenance.cleanup()),
        Job("summarize", 86400, lambda engine: engine.maintenance.auto_summarize()),
    ]


class LocalSchedules:
    def __init__(
        self,
        engine: Callable[[], Engine],
        jobs: list[Job] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.jobs = jobs if jobs is not None else default_jobs()
        self.clock = clock
        self._stop = threading.Event()

    def run_due(self) -> list[str]:
        """Run every job whose time has come; returns their names."""
        now = self.clock()
        ran = []
        for job in self.jobs:
            if now < job.next_at:
                continue
            job.next_at = now + job.every_s
            try:
                job.run(self.engine())
                ran.append(job.name)
            except Exception:
                log.exception("scheduled %s failed; next try in %.0f s", job.name, job.every_s)
        return ran

    def start(self, tick_s: float = 30.0) -> threading.Thread:
        def loop() -> None:
            while not self._stop.wait(tick_s):
                self.run_due()

        thread = threading.Thread(target=loop, name="engram-schedules", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()
