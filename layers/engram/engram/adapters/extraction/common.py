"""What every family of rules shares: the fact builder, objects, subjects, guards."""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.facts import (
    MAX_CONTENT_CHARS,
    STEMMER,
    ExtractedFact,
    Retraction,
    clean_object,
    fact_key,
    head,
    object_id,
    split_list,
)
from engram.adapters.extraction.lexicon import PEOPLE, subject_of
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = [
    "ADV",
    "WE",
    "WHO",
    "XL",
    "I",
    "Step",
    "X",
    "activity",
    "make_fact",
    "objects",
    "own",
]

Step = tuple[ExtractedFact | None, list[Retraction]]  # (fact, retractions)
I = re.IGNORECASE  # noqa: E741 - the regex flag, named as re names it
# The object of a statement: up to the end of the clause; XL may be a list.
X = r"(?P<x>[^,;:!?\n]+)"
XL = r"(?P<x>[^;:!?\n]+)"
ADV = (
    r"(?:(?:really|also|still|just|now|actually|definitely|generally|mostly|mainly|totally|"
    r"absolutely|honestly|personally|kind\s+of|sort\s+of|much|strongly|truly|even|currently|"
    r"then|very\s+much|increasingly|first|already|finally|recently|officially|probably|"
    r"primarily|only|both|all|heavily|exclusively|happily|mostly|basically|pretty\s+much)\s+){0,4}"
)
WE = r"\b(?:I|we)"
# Who the user speaks for: themselves, or their team ("our team uses Slack").
WHO = (
    r"\b(?:I|we|(?:our|my|the)\s+(?:whole\s+|entire\s+)?(?:team|company|org|organi[sz]ation|"
    r"startup|department|group|shop|squad|lab|agency))"
)
# Something said about someone else, or under a condition, is not the user's fact.
_NOT_OWN = rx.compile(
    r"^say\b|\blet\s+us\s+say\b|\bassuming\b|"
    r"\b(?:if|unless|whether|suppose|supposing|imagine|what\s+if|you\s+(?:said|think|thought|"
    r"mentioned|assume|suggested)|(?:he|she|they|someone|people|my\s+" + PEOPLE + r")\s+"
    r"(?:said|says|thinks?|thought|told\s+me|mentioned|claims?|likes?|loves?|uses?|prefers?|"
    r"hates?|wants?)|do\s+you\s+think|should|would|could|might|wonder|wish|hope|not\s+sure|"
    r"maybe|perhaps|asked|asking)\b"
    # "Explain things to me like I'm a beginner": a manner of answering, not who I am.
    r"|\b(?:like|as\s+if|as\s+though|pretend)\s*$",
    I,
)


def _cut(text: str) -> str:
    if len(text) <= MAX_CONTENT_CHARS:
        return text
    head = text[:MAX_CONTENT_CHARS]
    space = head.rfind(" ")
    return (head[:space] if space >= 3 else head).rstrip()


def make_fact(
    category: str,
    type_: MemoryType,
    obj: str,
    content: str,
    *,
    key: str | None = None,
    negative: bool = False,
    exclusive: bool = False,
    subject: str | None = None,
    about: str | None = None,
) -> ExtractedFact:
    """A fact about ``obj`` (``about`` overrides what corrections know it by)."""
    plain = restore(obj)
    return ExtractedFact(
        category=category,
        type=type_,
        # Tools are named by the tool, not the sentence ("Obsidian for a couple of years").
        key=key or fact_key(category, head(plain) if category == "tech_preference" else plain),
        content=_cut(restore(content)),
        object=about or object_id(plain),
        subject=subject if subject is not None else subject_of(plain),
        negative=negative,
        exclusive=exclusive,
    )


_LIGHT_VERBS = frozenset("go goes going went do does doing did take takes taking took".split())


def activity(obj: str) -> str:
    """What a habit is about: its verb's stem ("running in the evenings" -> ``run``), so a
    switch of habit ("I switched to running in the evenings") finds the old one."""
    words = re.findall(r"[a-z]+", restore(obj).lower())
    # "go swimming", "do yoga", "go for a run": the activity is the word after the verb.
    if len(words) > 1 and words[0] in _LIGHT_VERBS:
        skip = ("for", "a", "an", "the", "some", "my", "our", "his", "her", "their", "your")
        words = [w for w in words[1:] if w not in skip] or words
    return str(STEMMER.stemWord(words[0])) if words else ""


def objects(raw: str | None) -> list[str]:
    """The things ``raw`` names: one, or each item of a list."""
    if not raw:
        return []
    # A secret pasted beside a fact ("Replicate, token is [REDACTED]") drops that part only.
    raw = ", ".join(p for p in raw.split(", ") if "[REDACTED]" not in p)
    value = clean_object(raw)
    if not value:
        return []
    return [o for o in (clean_object(p) for p in split_list(value)) if o]


def own(clause: str, start: int) -> bool:
    """Whether the words before a match leave it the speaker's own statement."""
    return not _NOT_OWN.search(clause[:start])
