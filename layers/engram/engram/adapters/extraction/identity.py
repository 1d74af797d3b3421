"""Who the user is: name, employer, role, location, origin, age, time zone, diet...

One fact per aspect (``identity:employer``), so a new job or a move replaces the
old one and the old one goes to the history.

The phrasings are a rule table (``identity_rules``, built from ``identity_fragments``);
this module applies it, and reads the lists that make one fact per item (the languages
spoken, the allergies).
"""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import I, Step, make_fact, objects, own
from engram.adapters.extraction.facts import clean_object, slug
from engram.adapters.extraction.identity_fragments import ci
from engram.adapters.extraction.identity_rules import RULES
from engram.adapters.extraction.lexicon import is_known
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = ["read_identity"]

F = MemoryType.FACTUAL
_NOT_NAMES = frozenset(
    "sorry sure fine good great okay ok glad happy sad tired here back done ready new not "
    "hey well wow yay phew ugh yikes "
    "just also still going trying working looking thinking learning using building so very "
    "really in on at from a an the excited afraid confused curious interested stuck same "
    "nothing everything something someone everyone anyone nobody none it this that "
    "me us we they he she you there where what which click sign start stop look go come put "
    "paste type enter read check see wait sit stand stay right over down up more less tap "
    "scroll drop press hit originally mom mum dad mother father grandma grandpa nan nana".split()
)


_LANGUAGES = rx.compile(
    ci(r"\bI\s+(?:also\s+)?(?:speak|am\s+fluent\s+in|am\s+bilingual\s+in)\s+")
    + r"(?P<x>(?:(?i:a\s+(?:bit|little)\s+of|some|basic|fluent|conversational)\s+)?[A-Z][^;:!?\n]*)"
)


# "I'm allergic to penicillin, latex and bee stings": one fact per allergy, each its own
# (an allergy neither replaces a diet nor another allergy).
_ALLERGIES = rx.compile(
    ci(
        r"\bI\s+am\s+(?:[\w-]+\s+and\s+)?(?:also\s+|severely\s+|very\s+|mildly\s+|a\s+bit\s+)?"
        r"allergic\s+to\s+"
    )
    + r"(?P<x>[^;:!?\n]+)"
)
_ALLERGY_TAIL = rx.compile(r"\s*,?\s+(?:so|which|and\s+(?:I|it)|but|because)\b.*$", I)


def allergy_facts(raw: str) -> list[Step]:
    """One fact per allergy named in ``raw`` (also the other languages' readers)."""
    steps: list[Step] = []
    for item in objects(_ALLERGY_TAIL.sub("", raw)):
        name = restore(item).strip(" .")
        if not name or name.lower() in ("it", "that", "this", "them"):
            continue
        fact = make_fact(
            "identity", F, name, f"is allergic to {name}", key=f"identity:allergy_{slug(name)}"
        )
        steps.append((fact, []))
    return steps


def _allergies(clause: str) -> list[Step]:
    match = _ALLERGIES.search(clause)
    if match is None or not own(clause, match.start()):
        return []
    if re.search(r"\b(?:think|might|maybe|probably|wonder|suspect)\b", clause[: match.start()], I):
        return []  # "I think I'm allergic to cats": a worry, not yet a fact
    return allergy_facts(match.group("x"))


def _languages(clause: str) -> list[Step]:
    """ "I speak English, Portuguese and a bit of Japanese": one fact per language."""
    match = _LANGUAGES.search(clause)
    if match is None or not own(clause, match.start()):
        return []
    steps: list[Step] = []
    parts = re.split(r"\s*,\s*(?:and\s+)?|\s+(?:and|&)\s+", match.group("x"))
    for item in [o for p in parts for o in objects(p)]:
        name = re.sub(
            r"^(?i:a\s+(?:bit|little)\s+of|some|basic|fluent|conversational)\s+", "", item
        )
        if not name[:1].isupper() or is_known(name.split()[0]):
            continue  # "I speak Python fluently": a tool, not a language spoken
        fact = make_fact("identity", F, name, f"speaks {item}", key=f"identity:speaks_{slug(name)}")
        steps.append((fact, []))
    return steps


def read_identity(clause: str) -> list[Step] | None:
    steps: list[Step] = _languages(clause) + _allergies(clause)
    taken: list[tuple[int, int]] = []
    for aspect, pattern, template in rx.able(RULES, clause):
        for match in pattern.finditer(clause):
            span = match.span("x")
            if any(s < span[1] and span[0] < e for s, e in taken) or not own(clause, match.start()):
                continue
            value = restore(match.group("x")).strip(" .")
            value = re.sub(r"\s+(?:now|currently|these\s+days|anymore|today)$", "", value, flags=I)
            if aspect in ("name", "location") and value.split()[0].lower() in _NOT_NAMES:
                continue
            if aspect == "name" and is_known(value):  # "it's spelled Kubernetes": no name
                continue
            if aspect in ("employer", "role") and not clean_object(value):
                continue
            if aspect == "age" and not 1 <= int(value) <= 120:
                continue
            if aspect == "diet":
                value = value.lower()
            field = re.match(r"\s+in\s+([a-z][a-z\s-]{2,40}?)\s*$", clause[span[1] :])
            if aspect == "role" and field:
                value = f"{value} in {field.group(1)}"  # "a postdoc in marine biology"
            article = "an" if value[:1].lower() in "aeiou" else "a"
            taken.append(span)
            fact = make_fact(
                "identity",
                F,
                value,
                template.format(x=value, a=article),
                key=f"identity:{aspect}",
                exclusive=True,
                subject=aspect,
            )
            steps.append((fact, []))
    return steps or None
