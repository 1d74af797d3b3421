"""Rule-based fact extraction (regular expressions, no LLM).

Runs off the response path (a queued job). Each rule recognises one way of
stating a fact and yields a category, a memory type, the *object* of the
statement (which names the upsert key, so restating or reversing a preference
updates one memory) and the content to store (which keeps polarity and
modality: "never ...", "dislikes ...", "cannot ...").

Guards against the usual noise of rule extraction: questions are skipped,
objects that are only a pronoun ("I like it") are dropped, trailing clauses
("... because ...") are cut, and a span claimed by one rule is not claimed
again by a weaker one.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from .models import MemoryType

__all__ = [
    "MAX_CONTENT_CHARS",
    "MAX_INPUT_BYTES",
    "MIN_CONTENT_CHARS",
    "ExtractedFact",
    "extract_facts",
    "fact_key",
]

MAX_INPUT_BYTES = 64 * 1024
MIN_CONTENT_CHARS = 3
MAX_CONTENT_CHARS = 500
_MAX_SLUG = 60


@dataclass(frozen=True)
class ExtractedFact:
    category: str
    type: MemoryType
    key: str
    content: str

    def metadata(self, source: str, extracted_at: datetime) -> dict[str, str]:
        return {
            "category": self.category,
            "extractedAt": extracted_at.isoformat(timespec="seconds").replace("+00:00", "Z"),
            "source": source,
        }


@dataclass(frozen=True)
class _Rule:
    category: str
    type: MemoryType
    pattern: re.Pattern[str]
    # Content template: {x} is the object; {adv} an adverb captured by the rule.
    template: str = "{x}"


# The object of a statement: up to the end of the clause.
_X = r"(?P<x>[^.,;:!?\n]+)"
_I = r"\bI"
_WE = r"\b(?:I|we)"
_FLAGS = re.IGNORECASE


def _r(category: str, type_: MemoryType, pattern: str, template: str = "{x}") -> _Rule:
    return _Rule(category, type_, re.compile(pattern, _FLAGS), template)


F, E, P = MemoryType.FACTUAL, MemoryType.EPISODIC, MemoryType.PROCEDURAL

# Order matters: earlier rules claim their span first.
_RULES: tuple[_Rule, ...] = (
    # constraint: what must not be done
    _r(
        "constraint",
        F,
        _WE + r"\s+(?:really\s+)?(?:can't|can’t|cannot|can\s+not|must\s+not|mustn't|"
        r"shouldn't|should\s+not|(?:are|am|'re|'m)\s+not\s+allowed\s+to|aren't\s+allowed\s+to|"
        r"may\s+not|(?:are|am)\s+not\s+permitted\s+to)\s+" + _X,
        "cannot {x}",
    ),
    _r(
        "constraint",
        F,
        r"\b(?P<x>[\w][\w\s+#./-]{1,60}?)\s+(?:is|are)\s+not\s+allowed\b",
        "not allowed: {x}",
    ),
    # requirement: what must be done or supported
    _r(
        "requirement",
        P,
        _WE + r"\s+(?:really\s+)?(?:must|have\s+to|need\s+to|'ve\s+got\s+to|"
        r"are\s+required\s+to)\s+" + _X,
        "must {x}",
    ),
    _r("requirement", P, _WE + r"\s+(?:really\s+)?(?:need|require)\s+(?!to\b)" + _X, "needs {x}"),
    _r("requirement", P, r"\b(?:the\s+)?requirements?\s+(?:is|are|:)\s*" + _X, "requires {x}"),
    # tech_preference: the stack and tools in use
    _r(
        "tech_preference",
        F,
        r"\bmy\s+(?:favou?rite|preferred|go-to)\s+(?P<what>(?:programming\s+)?language|"
        r"framework|editor|ide|database|os|operating\s+system|shell|terminal|library|tool|"
        r"cloud(?:\s+provider)?|stack)\s+(?:is|are)\s+" + _X,
        "favorite {what}: {x}",
    ),
    _r(
        "tech_preference",
        F,
        _WE + r"\s+(?:mostly\s+|mainly\s+|primarily\s+)?(?:code|program|develop|write\s+code)"
        r"\s+(?:mostly\s+|mainly\s+|primarily\s+)?in\s+" + _X,
    ),
    _r("tech_preference", F, r"\b(?:our|my)\s+(?:tech\s+)?stack\s+(?:is|includes|uses)\s+" + _X),
    _r(
        "tech_preference",
        F,
        _WE + r"(?:'re|\s+are|'m|\s+am)\s+(?:currently\s+)?(?:using|building\s+(?:it\s+)?"
        r"(?:with|on|in))\s+" + _X,
    ),
    _r("tech_preference", F, _WE + r"\s+(?:use|work\s+with|develop\s+with)\s+" + _X),
    # preference: likes and dislikes
    _r(
        "preference",
        F,
        _I + r"\s+(?:really\s+|strongly\s+)?(?:don't|don’t|do\s+not)\s+(?:really\s+)?"
        r"(?:like|enjoy|want\s+to\s+use|care\s+for)\s+" + _X,
        "dislikes {x}",
    ),
    _r(
        "preference",
        F,
        _I + r"\s+(?:really\s+|truly\s+)?(?:hate|dislike|despise|can't\s+stand|avoid)\s+" + _X,
        "dislikes {x}",
    ),
    _r(
        "preference",
        F,
        _I + r"\s+(?:really\s+|much\s+|generally\s+|strongly\s+|definitely\s+|usually\s+|"
        r"always\s+|also\s+|still\s+)?(?:prefer|love|like|enjoy|favou?r)\s+" + _X,
    ),
    _r(
        "preference",
        F,
        r"\bmy\s+(?:favou?rite|preferred)\s+(?P<what>[a-z][\w\s-]{0,30}?)\s+(?:is|are)\s+" + _X,
        "favorite {what}: {x}",
    ),
    # decision: a choice made now (episodic)
    _r(
        "decision",
        E,
        _WE + r"(?:'ll|’ll|\s+will|\s+am\s+going\s+to|'m\s+going\s+to|\s+are\s+going\s+to|"
        r"'re\s+going\s+to|\s+shall)\s+(?:use|go\s+with|pick|choose|adopt|stick\s+with|"
        r"switch\s+to|migrate\s+to)\s+" + _X,
    ),
    _r(
        "decision",
        E,
        _WE + r"\s+(?:have\s+|'ve\s+)?(?:decided|chosen|opted)\s+(?:to\s+(?:use\s+|go\s+with\s+)?"
        r"|on\s+|for\s+)" + _X,
    ),
    _r("decision", E, _WE + r"\s+(?:went|are\s+going|'re\s+going)\s+with\s+" + _X),
    _r("decision", E, _WE + r"\s+(?:chose|picked|selected|opted\s+for)\s+" + _X),
    # pattern: habits
    _r(
        "pattern",
        F,
        _WE + r"\s+(?P<adv>always|usually|typically|generally|normally|never|rarely|often|"
        r"tend\s+to)\s+" + _X,
        "{adv} {x}",
    ),
    # Indonesian / Malay
    _r("preference", F, r"\bsaya\s+(?:tidak|tak)\s+suka\s+" + _X, "dislikes {x}"),
    _r("preference", F, r"\bsaya\s+benci\s+" + _X, "dislikes {x}"),
    _r("preference", F, r"\bsaya\s+(?:lebih\s+)?(?:suka|gemar|senang)\s+" + _X),
    _r("decision", E, r"\bsaya\s+akan\s+(?:menggunakan|memakai|pakai|guna)\s+" + _X),
    _r(
        "pattern",
        F,
        r"\bsaya\s+(?P<adv>selalu|sentiasa|biasanya|tidak\s+pernah)\s+" + _X,
        "{adv} {x}",
    ),
)

# Words that mean the object lives in another sentence: storing it would be noise.
_PRONOUN_OBJECTS = frozenset(
    "it that this these those them they you him her what how when where if whether".split()
)
# Clauses after these words explain the fact rather than state it.
_CLAUSE_CUT = re.compile(
    r"\s+(?:because|since|but|although|though|so\s+that|unless|whereas|while|which|"
    r"and\s+(?:I|we|it|they|you)\b|as\s+it|as\s+they)\b.*$",
    _FLAGS,
)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
_ADVERBS = {
    "tidak pernah": "never",
    "selalu": "always",
    "sentiasa": "always",
    "biasanya": "usually",
}


# Dots inside tokens (Node.js, 3.11, e.g.) must neither end a sentence nor an object:
# they travel as ONE DOT LEADER until the content is built.
_INNER_DOT = "\u2024"


def _sentences(text: str) -> Iterator[str]:
    protected = re.sub(r"(?<=\w)\.(?=\w)", _INNER_DOT, text)
    for match in _SENTENCE.finditer(protected):
        sentence = match.group(0).strip()
        if sentence and not sentence.endswith("?"):
            yield sentence


def _clean_object(raw: str) -> str:
    value = _CLAUSE_CUT.sub("", raw)
    return re.sub(r"\s+", " ", value).strip(" \t\"'`*_-")


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = head.rfind(" ")
    return (head[:space] if space >= MIN_CONTENT_CHARS else head).rstrip()


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")
    slug = re.sub(r"^(?:the|a|an)_", "", slug)
    if len(slug) > _MAX_SLUG:
        slug = slug[:_MAX_SLUG].rsplit("_", 1)[0]
    if not slug:
        # Scripts without an ASCII form still need a stable key.
        slug = "h" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return slug


def fact_key(category: str, obj: str) -> str:
    """``category:slug`` with slug in ``[a-z0-9_]+``: stable for the same object."""
    return f"{category}:{_slug(obj)}"


def _tail(text: str) -> str:
    data = text.encode("utf-8")
    if len(data) <= MAX_INPUT_BYTES:
        return text
    tail = data[-MAX_INPUT_BYTES:].decode("utf-8", errors="ignore")
    # Drop the partial first line: a cut sentence would yield a cut fact.
    newline = tail.find("\n")
    return tail[newline + 1 :] if 0 <= newline < len(tail) - 1 else tail


def extract_facts(text: str) -> list[ExtractedFact]:
    """Facts stated in ``text`` (the newest 64 KiB), one per key, later ones winning."""
    facts: dict[str, ExtractedFact] = {}
    for sentence in _sentences(_tail(text)):
        claimed: list[tuple[int, int]] = []
        for rule in _RULES:
            for match in rule.pattern.finditer(sentence):
                built = _build(rule, match)
                if built is None:
                    continue
                fact, span = built
                if any(span[0] < end and start < span[1] for start, end in claimed):
                    continue
                claimed.append(span)
                facts.pop(fact.key, None)  # re-insert so the latest statement wins order too
                facts[fact.key] = fact
    return list(facts.values())


def _build(rule: _Rule, match: re.Match[str]) -> tuple[ExtractedFact, tuple[int, int]] | None:
    """The fact a match states, and the span of the object it claims in the sentence."""
    raw = match.group("x")
    obj = _clean_object(raw)
    first = obj.split(" ", 1)[0].lower() if obj else ""
    if len(obj) < MIN_CONTENT_CHARS or first in _PRONOUN_OBJECTS:
        return None
    start = match.start("x") + raw.find(obj)
    span = (start, start + len(obj))
    obj = obj.replace(_INNER_DOT, ".")
    groups = match.groupdict()
    adverb = (groups.get("adv") or "").lower()
    adverb = _ADVERBS.get(adverb, re.sub(r"\s+", " ", adverb))
    what = re.sub(r"\s+", " ", (groups.get("what") or "").lower())
    content = rule.template.format(x=obj, adv=adverb, what=what)
    content = _cut(content, MAX_CONTENT_CHARS)
    key_object = f"favorite {what}" if what else obj
    fact = ExtractedFact(rule.category, rule.type, fact_key(rule.category, key_object), content)
    return fact, span
