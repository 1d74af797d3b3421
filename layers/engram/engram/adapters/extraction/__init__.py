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

import re
from dataclasses import replace as _replace
from datetime import UTC as _UTC
from datetime import datetime as _datetime
from functools import lru_cache as _lru_cache

from engram.adapters.extraction.common import Step as _Step
from engram.adapters.extraction.dates import resolve as _resolve
from engram.adapters.extraction.english import read_clause as _read_clause
from engram.adapters.extraction.facts import MAX_CONTENT_CHARS, MIN_CONTENT_CHARS, fact_key
from engram.adapters.extraction.facts import STEMMER as _STEMMER
from engram.adapters.extraction.gate import suspicious, worth_reading
from engram.adapters.extraction.indonesian import read_indonesian as _read_indonesian
from engram.adapters.extraction.lexicon import terms_in as _terms_in
from engram.adapters.extraction.obligations import read_moved_deadline as _read_moved_deadline
from engram.adapters.extraction.quality import acceptable, directive
from engram.adapters.extraction.text import clauses as _clauses
from engram.adapters.extraction.text import restore as _restore
from engram.adapters.extraction.text import sentences as _sentences
from engram.adapters.extraction.turkish import read_turkish as _read_turkish
from engram.domain.models.facts import (
    MAX_INPUT_BYTES,
    ExtractedFact,
    Extraction,
    Retraction,
    newest,
)
from engram.domain.models.facts import ExtractionRequest as _ExtractionRequest
from engram.domain.redaction import redact as _redact

__all__ = [
    "MAX_CONTENT_CHARS",
    "MAX_INPUT_BYTES",
    "MIN_CONTENT_CHARS",
    "ExtractedFact",
    "Extraction",
    "Retraction",
    "RuleExtractor",
    "acceptable",
    "directive",
    "extract",
    "extract_facts",
    "fact_key",
    "newest",
    "suspicious",
    "worth_reading",
]


class RuleExtractor:
    """The rules as an extractor (``ports.Extractor``): each turn read on its own, offline,
    in time linear in its length. Rules reconcile by key and subject (``learning``), so
    they need no known facts."""

    name = "rules"

    def reconciles(self) -> bool:
        return False

    def extract(self, request: _ExtractionRequest) -> list[Extraction]:
        return [extract(_redact(turn.text), request.at) for turn in request.turns]


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


_LETTER = re.compile(r"[^\W\d_]")


@_lru_cache(maxsize=4096)
def _read_sentence(
    sentence: str,
) -> tuple[tuple[ExtractedFact | None, tuple[Retraction, ...]], ...]:
    """What one sentence states. Rules are pure: a sentence said again (a pasted log, a
    repeated line) is read once."""
    if _LETTER.search(sentence) is None:
        return ()
    found: list[_Step] = []
    for clause in _clauses(sentence):
        found += _read_clause(clause) or _read_indonesian(clause) or _read_turkish(clause)
    if not any(fact is not None and fact.key == "requirement:deadline" for fact, _ in found):
        found += _read_moved_deadline(sentence)
    return tuple((fact, tuple(retractions)) for fact, retractions in found)


def extract(text: str, at: _datetime | None = None) -> Extraction:
    """The statements of ``text`` (its newest 64 KiB), in order; dates are resolved as
    seen from ``at``, when it was said (now by default)."""
    text = newest(text)
    at = at or _datetime.now(_UTC)
    steps: list[_Step] = []
    for sentence, question in _sentences(text):
        if question:
            continue
        corrects = sentence.startswith("CORRECTION ")
        sentence = sentence.removeprefix("CORRECTION ")
        found = [
            (_dated(fact, at), list(retractions)) for fact, retractions in _read_sentence(sentence)
        ]
        if corrects:
            found = _correcting(found)
        steps.extend(found)
    if not any(r.implicit for _, retractions in steps for r in retractions):
        return Extraction(steps, text=text)
    # An unnamed "instead" retires the earlier fact the message mentions: say what it names.
    plain = _restore(text)
    words = re.findall(r"[a-z0-9]+", plain.lower())
    named = {str(s) for s in _STEMMER.stemWords(words)} | set(_terms_in(plain))
    return Extraction(steps, text, frozenset(named), "_" + "_".join(words) + "_")


def _dated(fact: ExtractedFact | None, at: _datetime) -> ExtractedFact | None:
    """``fact`` with its relative date (``dates``) as seen from ``at``."""
    if fact is None or fact.when is None:
        return fact
    return _replace(fact, when=_resolve(fact.when, at))


def extract_facts(text: str) -> list[ExtractedFact]:
    """The facts stated in ``text``, one per key, later statements winning."""
    return extract(text).facts
