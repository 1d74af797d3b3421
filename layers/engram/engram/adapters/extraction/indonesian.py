"""Indonesian and Malay statements: the common ways of stating each kind of fact.

A clause is read by the rules of ``indonesian_rules`` first, then by the word tables of
``data/id.json``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import Step, make_fact
from engram.adapters.extraction.indonesian_rules import ID_ADVERBS, ID_RULES
from engram.adapters.extraction.lexicon import terms_in
from engram.adapters.extraction.readings import E, F, read_match

__all__ = ["read_indonesian"]


def read_indonesian(clause: str) -> list[Step]:
    for kind, pattern in rx.able(ID_RULES, clause):
        match = pattern.search(clause)
        if match is None:
            continue
        steps = read_match(kind, match, ID_ADVERBS)
        if steps:
            return steps
    return _read_life(clause)


# -- what people say about their lives, over the word tables (data/id.json) ---------------


@dataclass(frozen=True)
class _Tables:
    subjects: frozenset[str]
    adverbs: tuple[tuple[str, ...], ...]
    family: frozenset[str]
    pets: frozenset[str]
    possessions: frozenset[str]
    verbs: tuple[tuple[tuple[str, ...], str], ...]
    diet: tuple[tuple[tuple[str, ...], str], ...]
    age: tuple[tuple[str, ...], ...]
    marital: dict[str, str]
    years: frozenset[str]
    named: frozenset[str]
    times: tuple[tuple[tuple[str, ...], str], ...]
    time_starts: frozenset[str]
    templates: dict[str, str]


def _phrases(words: list[str]) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted((tuple(w.split()) for w in words), key=len, reverse=True))


@cache
def _tables() -> _Tables:
    raw = json.loads(resources.files(__package__).joinpath("data", "id.json").read_text("utf-8"))
    verbs = [(tuple(v.split()), kind) for kind, vs in raw["verbs"].items() for v in vs]
    diet = [(tuple(k.split()), v) for k, v in raw["diet"].items()]
    time = raw["time"]
    times = [(tuple(k.split()), f"d:{v}") for k, v in time["relative_days"].items()]
    times += [(tuple(k.split()), f"m:{v}") for k, v in time["relative_months"].items()]
    times += [(tuple(k.split()), f"y:{v}") for k, v in time["relative_years"].items()]
    return _Tables(
        subjects=frozenset(raw["subjects"]),
        adverbs=_phrases(raw["adverbs"]),
        family=frozenset(raw["relations"]["family"]),
        pets=frozenset(raw["relations"]["pet"]),
        possessions=frozenset(raw["possessions"]),
        verbs=tuple(sorted(verbs, key=lambda v: len(v[0]), reverse=True)),
        diet=tuple(sorted(diet, key=lambda v: len(v[0]), reverse=True)),
        age=_phrases(raw["age"]),
        marital=raw["marital"],
        years=frozenset(raw["years"]),
        named=frozenset(raw["named"]),
        times=tuple(sorted(times, key=lambda v: len(v[0]), reverse=True)),
        time_starts=frozenset(n[0] for n, _ in times),
        templates=dict(raw["templates"]),
    )


def _starts(lows: list[str], i: int, phrase: tuple[str, ...]) -> bool:
    return tuple(lows[i : i + len(phrase)]) == phrase


def _read_life(clause: str) -> list[Step]:
    """ "Saya ada dua ekor kucing", "Kami baru pindah ke Penang bulan lepas", "Umur saya
    28 tahun", "Anak saya baru masuk tadika": the subject, the verb, what follows."""
    t = _tables()
    words = [w.strip(".,!?") for w in clause.split() if w.strip(".,!?")]
    lows = [w.lower() for w in words]
    for phrase in t.age:
        if _starts(lows, 0, phrase) and len(lows) > len(phrase):
            number = lows[len(phrase)]
            if number.isdigit() and 1 <= int(number) <= 120:
                content = t.templates["age"].replace("{x}", number)
                fact = make_fact(
                    "identity",
                    F,
                    number,
                    content,
                    key="identity:age",
                    exclusive=True,
                    subject="age",
                )
                return [(fact, [])]
    when: str | None = None
    kept: list[str] = []
    k = 0
    while k < len(lows):  # time words are the fact's date, not its words
        hit = (
            next(((n, spec) for n, spec in t.times if _starts(lows, k, n)), None)
            if lows[k] in t.time_starts
            else None
        )
        if hit:
            when, k = hit[1], k + len(hit[0])
            continue
        kept.append(words[k])
        k += 1
    words, lows = kept, [w.lower() for w in kept]
    if not words:
        return []
    relation: str | None = None
    i = 0
    if lows[0] in t.subjects:
        i = 1
    elif lows[0] in t.family or lows[0] in t.pets or lows[0].removesuffix("ku") in t.family:
        relation = lows[0].removesuffix("ku")
        i = 2 if len(lows) > 1 and lows[1] in t.subjects else 1
    else:
        return []
    while i < len(lows):
        step = next((len(a) for a in t.adverbs if _starts(lows, i, a)), 0)
        if not step:
            break
        i += step
    if relation is None and i < len(lows) and lows[i] in t.marital:
        # "Saya sudah berkahwin": one status at a time, as in English ("belum", not yet,
        # is no adverb, so "saya belum berkahwin" says nothing)
        status = t.marital[lows[i]]
        fact = make_fact(
            "identity",
            F,
            status,
            f"is {status}",
            key="identity:marital",
            exclusive=True,
            subject="marital",
        )
        return [(fact, [])]
    for phrase, label in t.diet:
        if _starts(lows, i, phrase):
            what = " ".join(words[i + len(phrase) :])
            if what or label.startswith("is "):
                content = f"{label} {what}".strip()
                return [(make_fact("health", F, what or label, content), [])]
    verb = next(((p, kind) for p, kind in t.verbs if _starts(lows, i, p)), None)
    if verb is None:
        return []
    phrase, kind = verb
    rest = words[i + len(phrase) :]
    obj = " ".join(rest).strip()
    if not obj:
        return []
    nouns = {w.lower() for w in rest}
    if relation is not None:
        category, content = (
            ("pet" if relation in t.pets else "family"),
            f"{relation} {' '.join(words[i:])}",
        )
    elif kind == "possession":
        # "ada" is "have" and "there is": only a pet, family or a thing one owns is kept
        # ("saya ada rapat jam 3" is a meeting, not a possession).
        if nouns & t.pets:
            category = "pet"
        elif nouns & t.family:
            category = "family"
        elif nouns & t.possessions:
            category = "possession"
        else:
            return []
        template = t.templates["pet" if category == "pet" else "possession"]
        content = template.replace("{x}", obj)
    elif kind == "home":
        place = re.sub(r"^(?:ke|di|dari)\s+", "", obj)
        if terms_in(place):
            return []  # "saya pindah ke Kubernetes": a switch of tools, not of home
        lives = phrase[0] in ("tinggal", "menetap", "duduk")
        content = t.templates["home_live" if lives else "home"].replace("{x}", place)
        fact = make_fact(
            "home",
            F,
            place,
            content,
            key="identity:location",
            exclusive=True,
            subject="location",
        )
        return [(replace(fact, when=when if not lives else None), [])]
    else:
        category = kind
        content = t.templates[kind].replace("{x}", obj if kind != "event" else " ".join(words[i:]))
    type_ = E if category in ("event", "plan") else F
    fact = make_fact(category, type_, obj, content)
    if category == "event" or (relation is not None and when):
        when = when or "d:0"
    return [(replace(fact, when=when), [])]
