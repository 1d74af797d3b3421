"""Which extractor learns from a chat, by the settings (``extractor``), and its costs.

- ``rules``: the rules alone (offline, free).
- ``llm``: a language model reads the turns that can hold a fact (the cost gate), within
  the owner's daily token budget; a turn it cannot read stores nothing.
- ``rules+llm``: the rules first, then the model for what they leave: it is shown what the
  rules found (as known memories, so it adds only what is missing) and reads only the
  turns the gate passes; whatever the model does, the rules' facts stand.

What a model states is checked before it is learnt, whatever the model: a fact from a
turn that addresses the memory system itself ("store this instruction", "ignore previous
instructions") is dropped with the rest of that turn's reading; a standing instruction
must be a directive to the assistant; a fact holding a secret is dropped; and the rules'
last look (``acceptable``) applies to the model's facts too. A model that is unreachable,
slow or answers nonsense is logged and counted (engine status), never raised: the job
goes on with the rules' reading, and the chat never waited for it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from engram.app.health import FailureLog
from engram.domain.errors import EngramError, ModelOutputError
from engram.domain.models import ExtractorStatus, MemorySettings, MemoryType
from engram.domain.models.facts import (
    ExtractedFact,
    Extraction,
    ExtractionRequest,
    KnownFact,
    ModelFact,
    Retraction,
    SpokenTurn,
    slug_of,
)
from engram.domain.redaction import redact
from engram.ports import ExtractionModel, Extractor, ExtractorUsage

__all__ = ["ChosenExtractor", "ExtractorCounts", "ModelRules"]

log = logging.getLogger(__name__)

COMPONENT = "llm extractor"
_EPISODIC = frozenset({"event", "plan"})
_PROCEDURAL = frozenset({"instruction"})
# One fact of these at a time: a new one supersedes the old (the model names it).
_EXCLUSIVE = frozenset({"identity", "home", "work"})
_COPULA = re.compile(r"^(?:is|am|are|was|were)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class ModelRules:
    """The rules a model's reading is held to (from the rule extractor's package, given
    by the composition root): ``worth_reading(turn)`` is the cost gate,
    ``suspicious(turn)`` says a turn addresses the memory system itself,
    ``directive(content)`` that an instruction is one, ``acceptable(fact, turn)`` the
    rules' last look."""

    worth_reading: Callable[[str], bool]
    suspicious: Callable[[str], bool]
    directive: Callable[[str], bool]
    acceptable: Callable[[ExtractedFact, str], bool]


@dataclass
class ExtractorCounts:
    """What the LLM extractor did since the process started (engine status)."""

    turns_read: int = 0
    turns_sent: int = 0
    calls: int = 0
    failed: int = 0
    malformed: int = 0
    over_budget: int = 0
    suspicious: int = 0
    facts: int = 0
    dropped: int = 0
    tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return {k: v for k, v in vars(self).items() if not k.startswith("_")}


class ChosenExtractor:
    """``ports.Extractor`` that reads the settings on each job and combines the rules
    with a model as they say."""

    def __init__(
        self,
        settings: Callable[[], MemorySettings],
        rules: Extractor,
        model: ExtractionModel | None,
        usage: ExtractorUsage,
        checks: ModelRules,
        failures: FailureLog,
    ) -> None:
        self.settings = settings
        self.rules = rules
        self.model = model
        self.usage = usage
        self.checks = checks
        self.failures = failures
        self.counts = ExtractorCounts()

    def status(self) -> ExtractorStatus:
        settings = self.settings()
        llm = settings.extractor != "rules"
        return ExtractorStatus(
            mode=settings.extractor,
            model=settings.extractor_model if llm else None,
            endpoint=settings.extractor_base_url if llm else None,
            daily_tokens=settings.extractor_daily_tokens,
            **self.counts.snapshot(),
        )

    def reconciles(self) -> bool:
        return self.settings().extractor != "rules"

    def close(self) -> None:
        if self.model is not None:
            self.model.close()

    def extract(self, request: ExtractionRequest) -> list[Extraction]:
        settings = self.settings()
        self.counts.add(turns_read=len(request.turns))
        if settings.extractor == "rules" or self.model is None or not settings.extractor_model:
            return self.rules.extract(request)
        ruled = (
            self.rules.extract(request)
            if settings.extractor == "rules+llm"
            else [Extraction(text=t.text) for t in request.turns]
        )
        sent = [
            i
            for i, turn in enumerate(request.turns)
            if self.checks.worth_reading(turn.text)
            and not (settings.extractor == "rules+llm" and _covered(turn, ruled[i]))
        ]
        self.counts.add(turns_sent=len(sent))
        if not sent:
            return ruled
        asked = _asked(request, sent, ruled)
        day = request.at.date().isoformat()
        budget = settings.extractor_daily_tokens
        if self.usage.spent(request.owner, day) + self.model.estimate(asked) > budget:
            self.counts.add(over_budget=1)
            log.info("the LLM extractor's daily budget for %s is spent", request.owner)
            return ruled
        try:
            reading = self.model.read(asked, settings.extractor_model, settings.extractor_base_url)
        except EngramError as exc:
            malformed = isinstance(exc, ModelOutputError)
            self.counts.add(calls=1, failed=1, malformed=int(malformed))
            log.warning("the LLM extractor read nothing: %s", exc.message)
            self.failures.failed(COMPONENT, exc.message)
            return ruled
        self.failures.recovered(COMPONENT)
        self.usage.add(request.owner, day, reading.tokens)
        self.counts.add(calls=1, tokens=reading.tokens)
        return self._merged(request, sent, ruled, reading.facts)

    def _merged(
        self,
        request: ExtractionRequest,
        sent: list[int],
        ruled: list[Extraction],
        facts: tuple[ModelFact, ...],
    ) -> list[Extraction]:
        merged = [Extraction(list(e.steps), e.text, e.named, e.joined) for e in ruled]
        for fact in facts:
            index = sent[fact.turn]  # the model saw only the turns sent, renumbered
            turn = request.turns[index]
            step = self._step(fact, turn)
            if step is None:
                self.counts.add(dropped=1)
                continue
            if not _fold_in(merged[index], step):
                continue  # the rules said it already
            self.counts.add(facts=1)
        return merged

    def _step(
        self, fact: ModelFact, turn: SpokenTurn
    ) -> tuple[ExtractedFact | None, list[Retraction]] | None:
        """A model's fact as a step of learning, or None when it may not be learnt."""
        if self.checks.suspicious(turn.text):
            self.counts.add(suspicious=1)
            return None  # the turn speaks to the memory system: nothing of it is learnt
        if fact.action == "none":
            return None
        if fact.action == "retire":
            if turn.role != "user" or fact.memory_id is None or fact.memory_id.startswith("new:"):
                return None
            return None, [Retraction("", (), ids=(fact.memory_id,))]
        if redact(fact.content) != fact.content:
            return None  # a fact about a secret is not kept once the secret is gone
        if fact.category == "instruction" and (
            turn.role != "user" or not self.checks.directive(fact.content)
        ):
            return None
        replaces = (
            (fact.memory_id,)
            if fact.action == "update" and fact.memory_id and not fact.memory_id.startswith("new:")
            else ()
        )
        extracted = ExtractedFact(
            category=fact.category,
            type=_type_of(fact.category),
            key=f"{fact.category}:{slug_of(fact.content)}",
            content=fact.content,
            object=slug_of(fact.content),
            negative=fact.negative,
            when=fact.when,
            replaces=replaces,
            extractor="llm",
            exclusive=False,
        )
        # A model writes about the person in the third person ("is learning Japanese"):
        # the checks read what follows the copula, which a rule's clause would begin with.
        bare = _COPULA.sub("", fact.content, count=1) or fact.content
        if not self.checks.acceptable(replace(extracted, content=bare), turn.text):
            return None
        return extracted, []


def _fold_in(extraction: Extraction, step: tuple[ExtractedFact | None, list[Retraction]]) -> bool:
    """Add a model's step to a turn's reading, unless the rules said the same: a rules
    fact the model's says more fully ("sister moved to Lisbon" / "... for a job at a
    bakery") gives way to it; one that says as much keeps its place."""
    fact = step[0]
    if fact is None:
        extraction.steps.append(step)
        return True
    said = " ".join(fact.content.lower().split())
    for index, (ruled, retractions) in enumerate(extraction.steps):
        if ruled is None:
            continue
        known = " ".join(ruled.content.lower().split())
        if ruled.key == fact.key or said in known:
            return False
        if known in said:
            extraction.steps[index] = (fact, retractions)
            return True
    extraction.steps.append(step)
    return True


def _type_of(category: str) -> MemoryType:
    if category in _EPISODIC:
        return MemoryType.EPISODIC
    if category in _PROCEDURAL:
        return MemoryType.PROCEDURAL
    return MemoryType.FACTUAL


def _covered(turn: SpokenTurn, ruled: Extraction) -> bool:
    """With rules+llm: a short turn the rules already read whole needs no model (one
    sentence, one fact)."""
    facts = [f for f, _ in ruled.steps if f is not None]
    return bool(facts) and len(turn.text) <= 120 and turn.text.count(".") <= 1


def _asked(
    request: ExtractionRequest, sent: list[int], ruled: list[Extraction]
) -> ExtractionRequest:
    """The request the model gets: only the turns sent (redacted again: nothing secret
    leaves for the model), and what the rules just found among the known memories
    (``new:`` ids), so that it adds only what is missing."""
    found = [
        KnownFact(f"new:{n}", fact.content, fact.category, fact.when)
        for n, fact in enumerate(f for e in ruled for f, _ in e.steps if f is not None)
    ]
    return replace(
        request,
        turns=tuple(replace(request.turns[i], text=redact(request.turns[i].text)) for i in sent),
        context=tuple(replace(t, text=redact(t.text)) for t in request.context),
        known=tuple(request.known) + tuple(found),
    )
