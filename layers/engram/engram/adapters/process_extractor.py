"""An extractor run in a process of its own, for a server that handles chats in the same
interpreter (``engram serve``).

The rules are pure CPU work in Python: reading a long message takes the interpreter
for up to a second, and every chat of every other tenant served by that interpreter
waits its turn. In a process of its own the reading takes another core; the server's
thread only waits for the answer, without holding the interpreter. (In AWS the
extraction worker is a function of its own and needs none of this.)

The process is started on the first job (spawned: nothing of the server's threads is
copied), kept for the next ones, started again if it dies, and killed, not waited for,
when the engine closes.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor, TimeoutError
from concurrent.futures.process import BrokenProcessPool

from engram.domain.errors import UnavailableError
from engram.domain.models.facts import Extraction, ExtractionRequest
from engram.ports import Extractor

__all__ = ["OutOfProcess"]

log = logging.getLogger(__name__)


def _worker_started() -> None:
    # Two cores are shared by the server, its clients and this process: at the lowest
    # priority the reading takes only the CPU that chats leave idle.
    with contextlib.suppress(AttributeError, OSError):  # no nice() here: best effort
        os.nice(19)
    # A server killed outright never closes its pool: the worker goes with it, not on.
    parent = os.getppid()
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _extract(extractor: Extractor, request: ExtractionRequest) -> list[Extraction]:
    return extractor.extract(request)


class OutOfProcess:
    """``ports.Extractor`` that runs ``inner`` (picklable) in a worker process."""

    def __init__(self, inner: Extractor, *, timeout_s: float = 120.0) -> None:
        self.inner = inner
        self.timeout_s = timeout_s
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def reconciles(self) -> bool:
        return self.inner.reconciles()

    def _worker(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise UnavailableError("the extraction process is closed")
            if self._pool is None:
                context = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=context, initializer=_worker_started
                )
            return self._pool

    def extract(self, request: ExtractionRequest) -> list[Extraction]:
        pool = self._worker()
        try:
            return pool.submit(_extract, self.inner, request).result(timeout=self.timeout_s)
        except BrokenProcessPool as exc:
            with self._lock:
                self._pool = None  # a new process for the next job
            raise UnavailableError("the extraction process died; the job will be retried") from exc
        except TimeoutError as exc:
            self._kill()
            raise UnavailableError("the extraction process took too long") from exc

    def _kill(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()  # a reading under way is not waited for
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self._closed = True
        self._kill()
