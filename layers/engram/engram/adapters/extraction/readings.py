"""What a matched rule of another language (Indonesian/Malay, Turkish) states: the
fact each kind of rule makes of its match, shared by both languages' modules."""

from __future__ import annotations

import re

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import Step
from engram.adapters.extraction.common import make_fact as _fact
from engram.adapters.extraction.facts import (
    ExtractedFact,
    Retraction,
    clean_object,
    object_id,
    slug,
    split_list,
)
from engram.adapters.extraction.identity import allergy_facts
from engram.adapters.extraction.lexicon import known_term
from engram.adapters.extraction.text import restore
from engram.domain.models import MemoryType

__all__ = [
    "NOT_ID_NAMES",
    "E",
    "F",
    "P",
    "X",
    "objects",
    "read_match",
    "strip_case_suffix",
    "who_is",
]

F, E, P = MemoryType.FACTUAL, MemoryType.EPISODIC, MemoryType.PROCEDURAL
_I = re.IGNORECASE
X = r"(?P<x>[^,;:!?\n]+)"

# "saya Indonesia": who one is, but not a name.
NOT_ID_NAMES = frozenset(
    "indonesia malaysia singapura brunei jawa melayu cina india muslim kristen islam "
    "katolik hindu buddha baik sehat lapar capek sibuk senang setuju sakit lelah bingung siap "
    "kenyang haus sedih marah takut malu mau bisa tidak oke ok ya".split()
)


# Case suffixes after a name's apostrophe (accusative, dative, ablative, locative).
_CASE_SUFFIX = rx.compile(r"'(?:[a-zçğıöşü]{1,4})$", _I)


def strip_case_suffix(raw: str) -> str:
    """A Turkish name without its case suffix (\"Python'u\" -> \"Python\")."""
    return _CASE_SUFFIX.sub("", raw.strip())


def objects(raw: str) -> list[str]:
    value = clean_object(
        re.sub(r"\s+(?:lagi|sekarang|juga|saja|sih|kok|deh|ya)$", "", raw, flags=_I)
    )
    if not value:
        return []
    parts = (
        re.split(r"\s*,\s*(?:dan\s+|atau\s+)?|\s+(?:dan|atau)\s+", value)
        if "," in value
        or (
            re.search(r"\s(?:dan|atau)\s", value)
            and all(p[:1].isupper() for p in re.split(r"\s+(?:dan|atau)\s+", value))
        )
        else split_list(value)
    )
    return [p for p in (clean_object(q) for q in parts) if p]


_LOCAL_ASPECTS = [
    ("length", rx.compile(r"\b(?:kısa|uzun|pendek|singkat|panjang|ringkas|kata|kelime)\w*", _I)),
    ("language", rx.compile(r"\b(?:bahasa|dilinde|türkçe|ingilizce|inggris)\w*", _I)),
    ("emoji", rx.compile(r"emoji", _I)),
]


def _local_aspect(text: str) -> str:
    for name, pattern in _LOCAL_ASPECTS:
        if pattern.search(text):
            return name
    return slug(text)


def who_is(aspect: str, value: str, content: str) -> ExtractedFact:
    """Who the user is, one fact per ``aspect`` (a new one replaces it)."""
    return _fact(
        "identity", F, value, content, key=f"identity:{aspect}", exclusive=True, subject=aspect
    )


def read_match(
    kind: str,
    match: re.Match[str],
    adverbs: dict[str, str],
    strip: object = None,
) -> list[Step]:
    def objs(name: str = "x") -> list[str]:
        raw = match.group(name) or ""
        if callable(strip):
            raw = strip(raw)
        return objects(raw)

    if kind == "allergy":
        return allergy_facts(match.group("x"))
    if kind == "deadline":
        when = restore(match.group("x")).strip()
        due = _fact(
            "requirement",
            MemoryType.PROCEDURAL,
            when,
            f"deadline: {when}",
            key="requirement:deadline",
            exclusive=True,
            subject="deadline",
        )
        return [(due, [])]
    if kind == "budget":
        figure = restore(match.group("x")).strip()
        cap = _fact(
            "constraint", F, figure, f"budget: {figure}", key="constraint:budget", exclusive=True
        )
        return [(cap, [])]
    if kind == "switch":
        new = objs("new")
        olds = objs("old")
        places = [*new, *olds]
        moved = re.search(r"\b(?:pindah|berpindah)\b", match.group(0), _I) is not None
        if (
            moved
            and new
            and all(known_term(restore(p)) is None and p[:1].isupper() for p in places)
        ):
            # "Saya pindah dari Jakarta ke Surabaya": a move of home, not of tools.
            home = restore(new[0])
            moved_to = who_is("location", home, f"lives in {home}")
            return [(moved_to, [Retraction(object_id(restore(o)), ("identity",)) for o in olds])]
        fact = _fact("tech_preference", F, new[0], f"uses {new[0]}") if new else None
        retractions = [Retraction(object_id(restore(o)), replaced_by=fact) for o in olds]
        if fact is not None and not olds and fact.subject:
            retractions.append(Retraction(fact.subject, replaced_by=fact, keep=fact.object))
        return [(fact, retractions)] if fact or retractions else []
    if kind == "withdraw":
        steps: list[Step] = []
        for o in objs():
            fact = _fact("tech_preference", F, o, f"no longer uses {o}", negative=True)
            steps.append((fact, [Retraction(fact.object, ("decision",), replaced_by=fact)]))
        return steps
    if kind == "dislike":
        return [(_fact("preference", F, o, f"dislikes {o}", negative=True), []) for o in objs()]
    if kind == "compare":
        x, y = objs("x"), objs("y")
        if not x or not y:
            return []
        pair = sorted([object_id(x[0]), object_id(y[0])])
        fact = _fact(
            "preference",
            F,
            x[0],
            f"prefers {x[0]} over {y[0]}",
            key=f"preference:{pair[0]}_vs_{pair[1]}",
            exclusive=True,
        )
        return [(fact, [])]
    if kind in ("prefer", "like"):
        found = objs()
        return [
            (_fact("preference", F, o, o, exclusive=kind == "prefer" and len(found) == 1), [])
            for o in found
        ]
    if kind == "decision":
        found = objs()
        return [(_fact("decision", E, o, f"use {o}", exclusive=len(found) == 1), []) for o in found]
    if kind == "usage":
        return [(_fact("tech_preference", F, o, f"uses {o}"), []) for o in objs()]
    if kind == "pattern":
        found = objs()
        if not found:
            return []
        adverb = re.sub(r"\s+", " ", match.group("adv").lower())
        english = adverbs.get(adverb, adverb)
        return [
            (
                _fact(
                    "pattern",
                    F,
                    found[0],
                    f"{english} {found[0]}",
                    negative=english in ("never", "rarely"),
                ),
                [],
            )
        ]
    if kind == "favorite":
        value = restore(strip_case_suffix(match.group("x"))).strip(" .")
        what = match.group("what").lower()
        fact = _fact(
            "preference",
            F,
            value,
            f"favorite {what}: {value}",
            key=f"preference:favorite_{slug(what)}",
            exclusive=True,
        )
        return [(fact, [])]
    if kind == "diet":
        value = restore(match.group("x")).lower()
        return [(who_is("diet", value, f"is {value}"), [])]
    if kind == "hometown":
        value = restore(match.group("x"))
        return [(who_is("hometown", value, f"is from {value}"), [])]
    if kind == "instruction":
        body = restore(match.group("x")).strip(" .")
        aspect = _local_aspect(body)
        return [
            (
                _fact(
                    "instruction",
                    P,
                    body,
                    body,
                    key=f"instruction:{aspect}",
                    exclusive=True,
                    subject=aspect,
                ),
                [],
            )
        ]
    if kind == "role":
        value = restore(match.group("x")).strip(" .")
        steps = [(who_is("role", value, f"is {value}"), [])]
        place = match.groupdict().get("place")
        if place:
            place = restore(place).strip(" .")
            steps.append((who_is("location", place, f"works in {place}"), []))
        org = match.groupdict().get("org")
        if org:
            org = restore(org).strip(" .")
            steps.append((who_is("employer", org, f"works at {org}"), []))
        return steps
    if kind == "employer" and match.groupdict().get("role"):
        org = restore(strip_case_suffix(match.group("x"))).strip(" .")
        role = restore(match.group("role")).strip(" .")
        return [
            (who_is("employer", org, f"works at {org}"), []),
            (who_is("role", role, f"is {role}"), []),
        ]
    if kind in ("name", "employer", "location"):
        value = restore(strip_case_suffix(match.group("x"))).strip(" .")
        if not clean_object(value) or (kind != "employer" and known_term(value) is not None):
            return []  # "saya pindah ke React" is a switch of tools, not of home
        if kind == "name" and value.lower() in NOT_ID_NAMES:
            return []
        template = {"name": "name is {x}", "employer": "works at {x}", "location": "lives in {x}"}
        return [(who_is(kind, value, template[kind].format(x=value)), [])]
    if kind == "constraint":
        return [(_fact("constraint", F, o, f"cannot {o}", negative=True), []) for o in objs()[:1]]
    if kind == "requirement":
        return [(_fact("requirement", F, o, f"must {o}"), []) for o in objs()[:1]]
    return []
