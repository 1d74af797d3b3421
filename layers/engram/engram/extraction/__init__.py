"""Rule-based fact extraction (regular expressions, no LLM), off the response path.

``extract(text)`` reads a message sentence by sentence and returns its statements
in order: facts to store (a category, a memory type, the upsert key, the content,
and what the fact is about) and retractions of facts stated before ("I no longer
use Python", "we switched from Vue to React", "Django instead of FastAPI"). The
memory service applies them: a fact on an existing key with new content, or an
exclusive fact on the same subject, supersedes the old one, which moves to the
history; a retraction retires the facts it names.

Guards against the usual noise of rule extraction: questions and hypotheticals
are skipped, so are objects that only point elsewhere ("I like it") and idle
remarks ("I need a minute"), trailing explanations ("... because ...") and filler
("anymore", "now") are cut, and lists become one fact per item.
"""

from __future__ import annotations

from .common import Step as _Step
from .english import read_clause as _read_clause
from .facts import (
    MAX_CONTENT_CHARS,
    MIN_CONTENT_CHARS,
    ExtractedFact,
    Extraction,
    Retraction,
    fact_key,
)
from .obligations import read_moved_deadline as _read_moved_deadline
from .other_languages import read_indonesian as _read_indonesian
from .other_languages import read_turkish as _read_turkish
from .text import clauses as _clauses
from .text import sentences as _sentences

__all__ = [
    "MAX_CONTENT_CHARS",
    "MAX_INPUT_BYTES",
    "MIN_CONTENT_CHARS",
    "ExtractedFact",
    "Extraction",
    "Retraction",
    "extract",
    "extract_facts",
    "fact_key",
    "newest",
]

MAX_INPUT_BYTES = 64 * 1024


def newest(text: str) -> str:
    """The newest ``MAX_INPUT_BYTES`` of ``text``, from a whole line."""
    data = text.encode("utf-8")
    if len(data) <= MAX_INPUT_BYTES:
        return text
    tail = data[-MAX_INPUT_BYTES:].decode("utf-8", errors="ignore")
    # Drop the partial first line: a cut sentence would yield a cut fact.
    newline = tail.find("\n")
    return tail[newline + 1 :] if 0 <= newline < len(tail) - 1 else tail


def _correcting(steps: list[_Step]) -> list[_Step]:
    """ "Scratch that, ...", "Changed my mind, ...": the sentence's first fact replaces an
    earlier one of its kind even when it names none."""
    for index, (fact, retractions) in enumerate(steps):
        if fact is not None:
            if not retractions:
                implicit = Retraction("", (fact.category,), replaced_by=fact, implicit=True)
                steps[index] = (fact, [implicit])
            break
    return steps


def extract(text: str) -> Extraction:
    """The statements of ``text`` (its newest 64 KiB), in order."""
    result = Extraction(text=text)
    for sentence, question in _sentences(newest(text)):
        if question:
            continue
        found: list[_Step] = []
        corrects = sentence.startswith("CORRECTION ")
        sentence = sentence.removeprefix("CORRECTION ")
        for clause in _clauses(sentence):
            found += _read_clause(clause) or _read_indonesian(clause) or _read_turkish(clause)
        if not any(fact is not None and fact.key == "requirement:deadline" for fact, _ in found):
            found += _read_moved_deadline(sentence)
        if corrects:
            found = _correcting(found)
        result.steps.extend(found)
    return result


def extract_facts(text: str) -> list[ExtractedFact]:
    """The facts stated in ``text``, one per key, later statements winning."""
    return extract(text).facts
