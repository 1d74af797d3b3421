"""Ports of learning: extractors, the model an extractor asks, and the job queues."""

from __future__ import annotations

from typing import Protocol

from engram.domain.models import (
    Job,
)
from engram.domain.models.facts import Extraction, ExtractionRequest, ModelReading

__all__ = [
    "ExtractionModel",
    "Extractor",
    "ExtractorUsage",
    "JobQueue",
]


# -- learning -----------------------------------------------------------------------------


class Extractor(Protocol):
    """Reads the turns of one exchange and says what each teaches (``learning`` applies
    it): the rules, a model, or both (``settings.extractor``).

    ``extract`` returns one ``Extraction`` per turn of the request, in order. It runs
    outside any transaction and any lock: a slow extractor delays only its own job. It
    never raises for what it was given to read: an extractor that cannot read a turn
    (a model that failed, answered late or answered nonsense) returns nothing for it,
    logs and counts that, and the job goes on. ``reconciles`` says whether it wants the
    owner's closest facts in the request (``ExtractionRequest.known``) to decide what a
    new statement adds, updates or retires. Turns arrive as queued (redacted by whoever
    queued them); an extractor redacts what it reads again before reading or sending it
    anywhere, so a secret never becomes a fact whatever produced the job.
    """

    def extract(self, request: ExtractionRequest) -> list[Extraction]: ...

    def reconciles(self) -> bool: ...


class ExtractionModel(Protocol):
    """A language model that reads turns for facts (the LLM extractor's endpoint).

    ``read`` sends the request (the turns as data, their context, the known facts) to
    ``model`` at ``base_url`` (the upstream's when None) and returns what it read, checked
    against the schema. ``UnavailableError`` when the model cannot be reached, answers
    an error or answers late; ``ModelOutputError`` when what it answers is not the
    schema. ``estimate`` is the tokens a request would cost before sending it."""

    def read(
        self, request: ExtractionRequest, model: str, base_url: str | None
    ) -> ModelReading: ...

    def estimate(self, request: ExtractionRequest) -> int: ...

    def close(self) -> None: ...


class ExtractorUsage(Protocol):
    """What the LLM extractor spent, per owner and UTC day (``YYYY-MM-DD``), in tokens."""

    def spent(self, owner: str, day: str) -> int: ...

    def add(self, owner: str, day: str, tokens: int) -> None: ...


class JobQueue(Protocol):
    """Where jobs go to be processed off the request path (SQS, or in process).

    ``send`` must not block on processing; it raises ``EngramError`` when the job
    could not be queued (callers on the chat path log it and carry on).
    """

    def send(self, job: Job) -> None: ...
