"""What an extractor is given and what it yields (``ports.Extractor``).

An extractor reads the turns of one chat exchange and says, turn by turn, what each
teaches: facts to store, and retractions of facts stated before. ``learning.learn``
applies them. These are plain values: whichever extractor made them (rules, a model),
the learning path treats them alike.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime

from engram.domain.models.common import MemoryType

__all__ = [
    "FACT_CATEGORIES",
    "FACT_MAX_CHARS",
    "FACT_MIN_CHARS",
    "MAX_INPUT_BYTES",
    "ExtractedFact",
    "Extraction",
    "ExtractionRequest",
    "KnownFact",
    "ModelFact",
    "ModelReading",
    "Retraction",
    "SpokenTurn",
    "newest",
    "slug_of",
]

# An extracted fact's content, in characters (SPEC 3).
FACT_MIN_CHARS = 3
FACT_MAX_CHARS = 500
# Extraction reads at most the newest 64 KiB of a message (SPEC 3).
MAX_INPUT_BYTES = 64 * 1024
# Categories whose facts are about things in use, and so end when use ends.
USAGE = ("tech_preference", "decision")
# Every category an extractor may state: real life, then the technical ones.
FACT_CATEGORIES = (
    "identity",
    "work",
    "home",
    "family",
    "pet",
    "possession",
    "health",
    "preference",
    "pattern",
    "event",
    "plan",
    "goal",
    "learning",
    "activity",
    "tech_preference",
    "decision",
    "requirement",
    "constraint",
    "instruction",
)


_MAX_SLUG = 60


def slug_of(text: str) -> str:
    """The ``[a-z0-9_]+`` name of ``text`` in a memory key (``category:slug``): stable for
    the same words; a hash for scripts without an ASCII form."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    value = ascii_text.lower().replace("c++", "cpp").replace("c#", "csharp")
    value = re.sub(r"[^a-z0-9]+", "_", value).strip("_")
    value = re.sub(r"^(?:the|a|an)_", "", value)
    if len(value) > _MAX_SLUG:
        value = value[:_MAX_SLUG].rsplit("_", 1)[0]
    if not value:
        value = "h" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return value


def newest(text: str) -> str:
    """The newest ``MAX_INPUT_BYTES`` of ``text``, from a whole line."""
    data = text.encode("utf-8")
    if len(data) <= MAX_INPUT_BYTES:
        return text
    tail = data[-MAX_INPUT_BYTES:].decode("utf-8", errors="ignore")
    # Drop the partial first line: a cut sentence would yield a cut fact.
    newline = tail.find("\n")
    return tail[newline + 1 :] if 0 <= newline < len(tail) - 1 else tail


@dataclass(frozen=True)
class ExtractedFact:
    category: str
    type: MemoryType
    key: str
    content: str
    object: str = ""
    subject: str | None = None
    negative: bool = False
    # A new fact of this category and subject retires the earlier ones ("I prefer React
    # now" after "I prefer Vue"); likes and tools in use accumulate instead.
    exclusive: bool = False
    source: str = "user"
    # The day a dated fact happened or is planned for (ISO 8601 date), when it has one.
    when: str | None = None
    # Memories this fact supersedes by id (a model's reconciliation names them).
    replaces: tuple[str, ...] = ()
    # Which extractor stated it: ``rules`` or ``llm``.
    extractor: str = "rules"

    def metadata(self, extracted_at: datetime) -> dict[str, str]:
        """``category``, ``extractedAt``, ``source`` (whose words: ``user`` or
        ``assistant``), what the fact is about (``object``, ``subject``), its date
        (``when``) and the extractor that stated it."""
        meta = {
            "category": self.category,
            "extractedAt": extracted_at.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "source": self.source,
        }
        if self.object:
            meta["object"] = self.object
        if self.subject:
            meta["subject"] = self.subject
        if self.negative:
            meta["polarity"] = "negative"
        if self.when:
            meta["when"] = self.when
        if self.extractor != "rules":
            meta["extractor"] = self.extractor
        return meta


@dataclass(frozen=True)
class Retraction:
    """Facts about ``about`` (an object id, or a subject) stop being true; ``replaced_by``
    is the fact of the same statement that takes their place, if any; facts about
    ``keep`` are left alone (a switch to React retires other front-end frameworks)."""

    about: str
    categories: tuple[str, ...] = USAGE
    replaced_by: ExtractedFact | None = None
    keep: str | None = None
    source: str = "user"
    # "We'll use ECharts instead": what is replaced goes unnamed; it is the earlier fact
    # the message mentions ("Chart.js struggles with heatmaps"), else the latest one.
    implicit: bool = False
    # The words that name what is retired ("the newsletter"), when they are not its verb:
    # a habit keyed by its verb ("send the newsletter every Monday") is found by them.
    words: str = ""
    # Memories retired by id (a model's reconciliation: "retire" names them).
    ids: tuple[str, ...] = ()


Step = tuple[ExtractedFact | None, list[Retraction]]


@dataclass
class Extraction:
    """Statements in the order they were made: each a fact, its retractions, or both.

    ``named`` holds what the message names (words, their stems, known things' canonical
    names) and ``joined`` its words joined by ``_``, so that an unnamed "instead" can
    find the earlier fact the message mentions (``mentions``)."""

    steps: list[Step] = field(default_factory=list)
    text: str = ""
    named: frozenset[str] = frozenset()
    joined: str = ""

    def mentions(self, about: str) -> bool:
        """Whether the message names ``about`` (an object id or an activity's stem)."""
        return bool(about) and (about in self.named or f"_{about}_" in self.joined)

    @property
    def facts(self) -> list[ExtractedFact]:
        """One fact per key, the latest statement winning."""
        found: dict[str, ExtractedFact] = {}
        for fact, _ in self.steps:
            if fact is not None:
                found.pop(fact.key, None)
                found[fact.key] = fact
        return list(found.values())


@dataclass(frozen=True)
class SpokenTurn:
    """One message: who said it (``user`` or ``assistant``, and the name the client gave
    them) and what they said (redacted)."""

    role: str
    text: str
    name: str | None = None


@dataclass(frozen=True)
class KnownFact:
    """A memory the owner already has, shown to an extractor that reconciles."""

    id: str
    content: str
    category: str = ""
    when: str | None = None


@dataclass(frozen=True)
class ExtractionRequest:
    """What an extractor reads: the ``turns`` to learn from, the messages before them
    (``context``: read to resolve "this is Max", "there", "it", never learnt from),
    when they were said, and, for an extractor that reconciles, the closest facts the
    owner already has."""

    owner: str
    turns: tuple[SpokenTurn, ...]
    at: datetime
    session_id: str | None = None
    context: tuple[SpokenTurn, ...] = ()
    known: tuple[KnownFact, ...] = ()


@dataclass(frozen=True)
class ModelFact:
    """One statement a model read in a turn: what to do (``add`` a memory, ``update``
    the known memory ``memory_id`` with this content, ``retire`` it, or nothing), and
    the fact itself."""

    turn: int
    action: str
    category: str
    content: str
    negative: bool = False
    when: str | None = None
    memory_id: str | None = None


@dataclass(frozen=True)
class ModelReading:
    """What a model read in one call, and the tokens the call cost."""

    facts: tuple[ModelFact, ...]
    tokens: int
