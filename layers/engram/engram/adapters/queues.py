"""Queue adapters for the engine's ``JobQueue`` port: SQS in AWS, a thread locally,
or the caller's own thread where neither fits (a Lambda function without a queue).

All send a job model; the SQS body is the job's JSON, which the workers in
``functions/`` validate back into the same model.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from engram.domain.errors import UnavailableError, log_safe
from engram.domain.models import Job

__all__ = ["InProcessQueue", "InlineQueue", "SqsQueue"]

log = logging.getLogger(__name__)


class InlineQueue:
    """Processes a job at once, in the sender's thread (failures logged, never raised).

    For a Lambda function given no queue: a thread would be frozen with the instance
    between invocations, while inline work finishes before the invocation returns.
    """

    def __init__(self, handle: Callable[[Job], Any]) -> None:
        self._handle = handle

    def send(self, job: Job) -> None:
        try:
            self._handle(job)
        except Exception as exc:
            log.warning("inline %s job %s failed: %s", job.kind, job.request_id, log_safe(exc))


# A failed job is tried again after these delays (seconds), as SQS would redeliver it:
# a write that met a lock held for a moment still lands. Jobs are idempotent.
RETRY_DELAYS_S = (1.0, 5.0)


# Jobs taken from the queue at once, as an SQS batch would bring them: ``read_ahead``
# sees them together before each is handled.
BATCH = 10


class InProcessQueue:
    """Jobs handled off the request path by one daemon thread of this process.

    The local stack starts the thread on the first job; tests pass ``autostart=False``
    and call :meth:`drain` to process what was queued, deterministically (a failed job
    is then tried again at the end of the same drain, without waiting). What is queued
    is taken up to ``BATCH`` at a time and given to ``read_ahead`` (when there is one)
    before each job is handled, as the SQS workers do with a batch.
    """

    def __init__(
        self,
        handle: Callable[[Job], Any],
        *,
        read_ahead: Callable[[list[Job]], Any] | None = None,
        autostart: bool = True,
        maxsize: int = 10_000,
    ) -> None:
        self._handle = handle
        self._read_ahead = read_ahead
        self._autostart = autostart
        self._jobs: queue.Queue[Job | None] = queue.Queue(maxsize=maxsize)
        self._attempts: dict[str, int] = {}
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    def send(self, job: Job) -> None:
        if self._closed:
            raise UnavailableError("the in-process job queue is closed")
        try:
            self._jobs.put_nowait(job)
        except queue.Full as exc:
            raise UnavailableError("the in-process job queue is full") from exc
        if self._autostart:
            self._ensure_worker()

    @property
    def pending(self) -> int:
        return self._jobs.qsize()

    def drain(self) -> int:
        """Process every queued job now, in this thread; returns how many."""
        done = 0
        while True:
            try:
                first = self._jobs.get_nowait()
            except queue.Empty:
                return done
            batch, _ = self._batch(first)
            self._run(batch)
            done += len(batch)

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop taking jobs and let the worker finish those queued (up to ``timeout_s``),
        so nothing is still writing when the engine closes the database."""
        self._closed = True
        with self._lock:
            thread = self._thread
        if thread is None or not thread.is_alive():
            return
        self._jobs.put(None)  # after every job already queued
        thread.join(timeout_s)
        if thread.is_alive():
            log.warning("the job worker did not finish within %.0f s", timeout_s)

    def _ensure_worker(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="engram-jobs", daemon=True)
                self._thread.start()

    def _work(self) -> None:
        stop = False
        while not stop:
            batch, stop = self._batch(self._jobs.get())
            self._run(batch)

    def _batch(self, first: Job | None) -> tuple[list[Job], bool]:
        """``first`` and what else is queued now (up to ``BATCH``); True once the stop
        mark was taken (it is queued after every job: nothing follows it)."""
        if first is None:
            self._jobs.task_done()
            return [], True
        batch = [first]
        while len(batch) < BATCH:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is None:
                self._jobs.task_done()
                return batch, True
            batch.append(job)
        return batch, False

    def _run(self, batch: list[Job]) -> None:
        if len(batch) > 1 and self._read_ahead is not None:
            try:
                self._read_ahead(batch)
            except Exception as exc:  # each job is read on its own then
                log.warning("background jobs not read ahead: %s", log_safe(exc))
        for job in batch:
            self._run_one(job)

    def _run_one(self, job: Job) -> None:
        try:
            self._handle(job)
        except Exception as exc:
            # The job id and the failure, never its message: that may quote the job's text.
            attempt = self._attempts.get(job.request_id, 0)
            retry = attempt < len(RETRY_DELAYS_S) and not self._closed
            log.warning(
                "background %s job %s failed (%s); %s",
                job.kind,
                job.request_id,
                log_safe(exc),
                "will retry" if retry else "dropped",
            )
            if retry:
                self._attempts[job.request_id] = attempt + 1
                self._retry(job, RETRY_DELAYS_S[attempt])
            else:
                self._attempts.pop(job.request_id, None)
        else:
            self._attempts.pop(job.request_id, None)
        finally:
            self._jobs.task_done()

    def _retry(self, job: Job, delay_s: float) -> None:
        if not self._autostart:
            self._jobs.put_nowait(job)  # a drain takes it again before it returns
            return
        timer = threading.Timer(delay_s, self._jobs.put_nowait, args=(job,))
        timer.daemon = True
        timer.start()


class SqsQueue:
    """Sends jobs to an SQS queue. boto3 is imported on first use (cold-start cost)."""

    def __init__(self, queue_url: str, *, endpoint_url: str | None = None) -> None:
        self.queue_url = queue_url
        self._endpoint_url = endpoint_url
        self._client: Any = None
        self._lock = threading.Lock()

    def _sqs(self) -> Any:
        with self._lock:
            if self._client is None:
                import boto3
                from botocore.config import Config as BotoConfig

                # A chat answer may wait for its job to be queued (the streamed function
                # queues before answering): a degraded SQS costs it seconds, not botocore's
                # default minute per attempt.
                self._client = boto3.client(
                    "sqs",
                    endpoint_url=self._endpoint_url,
                    config=BotoConfig(
                        connect_timeout=2,
                        read_timeout=3,
                        retries={"total_max_attempts": 2, "mode": "standard"},
                    ),
                )
            return self._client

    def send(self, job: Job) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self._sqs().send_message(
                QueueUrl=self.queue_url,
                MessageBody=job.model_dump_json(),
                MessageAttributes={"kind": {"DataType": "String", "StringValue": job.kind}},
            )
        except (BotoCoreError, ClientError) as exc:
            raise UnavailableError(f"could not send the {job.kind} job to SQS") from exc
