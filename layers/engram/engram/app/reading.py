"""What a chat exchange teaches: an extraction job's turns read by the configured
extractor, one exchange at a time or a session's exchanges together.

A worker that receives several jobs at once (an SQS batch, the in-process queue's
backlog) reads ahead: the jobs of one session, said the same day, go to the extractor
as one request. A model then reads a conversation's exchanges in one call, with one
instruction prompt and one list of known memories, instead of one call per exchange
(the rules read turn by turn either way). Each job still writes what it taught in its
own transaction, exactly once: reading ahead only decides when the reading happens.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import date, datetime

from engram.app.conversation import turn_key
from engram.domain.errors import EngramError, log_safe
from engram.domain.models import ExtractionJob
from engram.domain.models.common import from_millis
from engram.domain.models.facts import Extraction, ExtractionRequest, KnownFact, SpokenTurn
from engram.ports import Extractor

__all__ = ["MAX_BATCH_JOBS", "MAX_BATCH_TURNS", "ExchangeReader", "Read"]

log = logging.getLogger(__name__)

# One request holds at most this much: the model answers within its token cap, and one
# failed call costs a few exchanges, never a whole backlog.
MAX_BATCH_JOBS = 8
MAX_BATCH_TURNS = 12
# Readings kept for jobs not handled yet; the oldest go first (a job that was never
# handled after its batch was read: the worker died, the queue closed).
MAX_UNCLAIMED = 64

# Per turn: whose words, the key of the stored turn they were said in, what they teach.
Read = list[tuple[str, str | None, Extraction]]
_Turn = tuple[str, str, str | None, str | None]


class ExchangeReader:
    def __init__(
        self,
        extractor: Extractor,
        now_ms: Callable[[], int],
        related: Callable[[str, str], list[KnownFact]] | None = None,
        done: Callable[[str], bool] | None = None,
    ) -> None:
        self.extractor = extractor
        self.now_ms = now_ms
        # For an extractor that reconciles: the owner's closest facts to a text.
        self.related = related
        # Whether a job id was learnt from already (the job ledger): a delivery again is
        # never read again, as the job itself would not be.
        self.done = done
        self._ahead: dict[str, Read] = {}
        self._lock = threading.Lock()

    def read(self, job: ExtractionJob) -> Read:
        """What each turn of ``job`` teaches, as read ahead or read now."""
        with self._lock:
            ahead = self._ahead.pop(job.request_id, None)
        if ahead is not None:
            return ahead
        return self._read([job])[0]

    def read_ahead(self, jobs: Sequence[ExtractionJob]) -> int:
        """Read the jobs of each session together, for :meth:`read` to hand out; returns
        how many jobs were read ahead. A reading that raises (the reading process died) is
        logged, and each job is read on its own when it is handled. A model that fails
        is no exception here: the extractor stores nothing of it for the whole batch, as
        it would for each job alone."""
        groups: dict[tuple[str, str, date], list[ExtractionJob]] = defaultdict(list)
        for job in jobs:
            if job.session_id is None:  # without one, exchanges may be any conversation
                continue
            if self.done is not None and self.done(job.request_id):
                continue
            groups[(job.api_key_id, job.session_id, self._at(job).date())].append(job)
        read: dict[str, Read] = {}
        for group in groups.values():
            for batch in _batches(sorted(group, key=self._at)):
                if len(batch) < 2:
                    continue
                try:
                    read.update(zip((j.request_id for j in batch), self._read(batch), strict=True))
                except EngramError as exc:
                    log.warning("%d exchanges not read together: %s", len(batch), log_safe(exc))
        with self._lock:
            self._ahead.update(read)
            while len(self._ahead) > MAX_UNCLAIMED:  # read for jobs that never came
                del self._ahead[next(iter(self._ahead))]
        return len(read)

    def _at(self, job: ExtractionJob) -> datetime:
        return job.at or from_millis(self.now_ms())

    def _read(self, jobs: Sequence[ExtractionJob]) -> list[Read]:
        """One request for every turn of ``jobs`` (one owner, one session, in order)."""
        turns: list[list[_Turn]] = [_turns(job) for job in jobs]
        spoken = tuple(SpokenTurn(r, text, name) for each in turns for r, text, name, _ in each)
        first, last = jobs[0], jobs[-1]
        known: tuple[KnownFact, ...] = ()
        if self.related is not None and spoken and self.extractor.reconciles():
            about = "\n".join(t.text for t in spoken if t.role == "user") or spoken[-1].text
            known = tuple(self.related(first.api_key_id, about))
        request = ExtractionRequest(
            owner=first.api_key_id,
            turns=spoken,
            at=self._at(last),
            session_id=first.session_id,
            context=tuple(SpokenTurn(t.role, t.text, t.name) for t in first.context),
            known=known,
        )
        read = iter(
            [
                (role, said_in, extraction)
                for (role, _, _, said_in), extraction in zip(
                    (turn for each in turns for turn in each),
                    self.extractor.extract(request),
                    strict=True,  # one extraction per turn: the port's promise
                )
            ]
        )
        return [[next(read) for _ in each] for each in turns]


def _turns(job: ExtractionJob) -> list[_Turn]:
    # The turns as queued: the chat redacted them before queueing, and every extractor
    # redacts what it reads again (``ports.Extractor``), in its own process if it has one.
    turns: list[_Turn] = [
        (t.role, t.text, t.name, turn_key(job, i)) for i, t in enumerate(job.turns)
    ]
    if job.text:  # a job queued before turns existed
        turns.append(("user", job.text, None, None))
    return turns


def _batches(jobs: list[ExtractionJob]) -> list[list[ExtractionJob]]:
    batches: list[list[ExtractionJob]] = [[]]
    turns = 0
    for job in jobs:
        count = len(job.turns) + (1 if job.text else 0)
        if batches[-1] and (len(batches[-1]) >= MAX_BATCH_JOBS or turns + count > MAX_BATCH_TURNS):
            batches.append([])
            turns = 0
        batches[-1].append(job)
        turns += count
    return batches
