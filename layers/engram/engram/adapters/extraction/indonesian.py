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
from engram.adapters.extraction.dates import direction
from engram.adapters.extraction.indonesian_rules import ID_ADVERBS, ID_RULES
from engram.adapters.extraction.lexicon import terms_in
from engram.adapters.extraction.readings import E, F, read_match, who_is
from engram.adapters.extraction.tables import relative_times

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
    weekdays: dict[str, str]
    months: dict[str, str]
    time_last: tuple[tuple[str, ...], ...]
    time_next: tuple[tuple[str, ...], ...]
    relation_words: frozenset[str]  # "adik perempuanku": which one
    works_as: tuple[tuple[str, ...], ...]


def _phrases(words: list[str]) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted((tuple(w.split()) for w in words), key=len, reverse=True))


@cache
def _tables() -> _Tables:
    raw = json.loads(resources.files(__package__).joinpath("data", "id.json").read_text("utf-8"))
    verbs = [(tuple(v.split()), kind) for kind, vs in raw["verbs"].items() for v in vs]
    diet = [(tuple(k.split()), v) for k, v in raw["diet"].items()]
    time = raw["time"]
    times = relative_times(time)
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
        times=tuple(times),
        time_starts=frozenset(n[0] for n, _ in times),
        templates=dict(raw["templates"]),
        weekdays=dict(time["weekdays"]),
        months=dict(time["months"]),
        time_last=_phrases(time["last"]),
        time_next=_phrases(time["next"]),
        relation_words=frozenset(raw["relation_words"]),
        works_as=_phrases(raw["works_as"]),
    )


def _named_time(lows: list[str], k: int, t: _Tables) -> tuple[str, int] | None:
    """A weekday or a month and which one ("Senin kemarin", "bulan Agustus lalu",
    "Desember nanti"): its spec and the word after it, or None."""
    at = k + 1 if lows[k] == "bulan" and k + 1 < len(lows) and lows[k + 1] in t.months else k
    name = lows[at] if at < len(lows) else ""
    kind, day = ("mo", t.months.get(name)) if name in t.months else ("wd", t.weekdays.get(name))
    if day is None:
        return None
    last = next((len(p) for p in t.time_last if _starts(lows, at + 1, p)), 0)
    ahead = next((len(p) for p in t.time_next if _starts(lows, at + 1, p)), 0)
    if not (last or ahead):
        return None  # "minggu" alone is a week, or Sunday: said with which, it is a day
    return f"{kind}:{'last' if last else 'next'}:{day}", at + 1 + (last or ahead)


def _clause_end(commas: list[bool], start: int) -> int:
    """The word after the first comma from ``start`` on (the end, without one)."""
    return next((j + 1 for j in range(start, len(commas)) if commas[j]), len(commas))


def _starts(lows: list[str], i: int, phrase: tuple[str, ...]) -> bool:
    return tuple(lows[i : i + len(phrase)]) == phrase


def _read_life(clause: str) -> list[Step]:
    """ "Saya ada dua ekor kucing", "Kami baru pindah ke Penang bulan lepas", "Umur saya
    28 tahun", "Anak saya baru masuk tadika": the subject, the verb, what follows."""
    t = _tables()
    tokens = [w for w in clause.split() if w.strip(".,!?")]
    words = [w.strip(".,!?") for w in tokens]
    # where a comma ends a word: a role or an event said whole ends there
    commas = [w.rstrip(".!?").endswith(",") for w in tokens]
    lows = [w.lower() for w in words]
    for phrase in t.age:
        if _starts(lows, 0, phrase) and len(lows) > len(phrase):
            number = lows[len(phrase)]
            if number.isdigit() and 1 <= int(number) <= 120:
                content = t.templates["age"].replace("{x}", number)
                fact = who_is("age", number, content)
                return [(fact, [])]
    when: str | None = None
    kept: list[str] = []
    kept_commas: list[bool] = []
    k = 0
    while k < len(lows):  # time words are the fact's date, not its words
        hit = (
            next(((n, spec) for n, spec in t.times if _starts(lows, k, n)), None)
            if lows[k] in t.time_starts
            else None
        )
        span = (hit[1], k + len(hit[0])) if hit else _named_time(lows, k, t)
        if span is not None:
            when, after = span
            if kept_commas and any(commas[k:after]):
                kept_commas[-1] = True  # "graduate bulan lepas, sekarang ...": the comma stays
            k = after
            continue
        kept.append(words[k])
        kept_commas.append(commas[k])
        k += 1
    words, lows, commas = kept, [w.lower() for w in kept], kept_commas
    if not words:
        return []
    relation: str | None = None
    owned = False  # the relation is the user's ("kucing aku"), not another's
    i = 0
    if lows[0] in t.subjects:
        i = 1
    elif lows[0] in t.family or lows[0] in t.pets or lows[0].removesuffix("ku") in t.family:
        relation = lows[0].removesuffix("ku")
        owned = lows[0] != relation  # "anakku": my child
        i = 1
        if i < len(lows) and lows[i] in t.relation_words:
            owned = owned or lows[i].endswith("ku")
            i += 1  # "adik perempuanku", "anak sulung saya": which one
        if i < len(lows) and lows[i] in t.subjects:
            owned = True
            i += 1
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
        fact = who_is("marital", status, f"is {status}")
        return [(fact, [])]
    for phrase, label in t.diet:
        if _starts(lows, i, phrase):
            what = " ".join(words[i + len(phrase) :])
            if what or label.startswith("is "):
                content = f"{label} {what}".strip()
                return [(make_fact("health", F, what or label, content), [])]
    if relation is None:
        role = next((p for p in t.works_as if _starts(lows, i, p)), None)
        if role is not None and len(lows) > i + len(role):
            # "Aku kerja sebagai programmer freelance": who the user is, one role at a time
            what = " ".join(words[i + len(role) : _clause_end(commas, i + len(role))])
            fact = who_is("role", what, f"is {what}")
            return [(fact, [])]
    verb = next(((p, kind) for p, kind in t.verbs if _starts(lows, i, p)), None)
    if verb is None:
        if relation is not None and owned and len(lows) - i >= 2:
            # "Abang saya kerja sebagai doktor", "Kucing aku nama Comel": their news
            category = "pet" if relation in t.pets else "family"
            fact = make_fact(category, F, relation, f"{relation} {' '.join(words[i:])}")
            return [(replace(fact, when=when), [])]
        return []
    phrase, kind = verb
    rest = words[i + len(phrase) :]
    obj = " ".join(rest).strip()
    if not obj and kind not in ("event", "work"):
        return []  # "bertunang", "berhenti kerja": the verb is the event itself
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
        if kind == "event" and nouns & t.pets:
            category = "pet"  # "baru ambil anak anjing": a pet of one's own
        if kind == "event" and when and direction(when) > 0:
            category = "plan"  # "Desember nanti gue mau mudik": still ahead
        whole = kind in ("event", "work")
        said = " ".join(words[i : _clause_end(commas, i)])
        content = t.templates[kind].replace("{x}", said if whole else obj)
    type_ = E if category in ("event", "plan", "work") else F
    fact = make_fact(category, type_, obj, content)
    if category in ("event", "work") or (relation is not None and when):
        when = when or "d:0"
    return [(replace(fact, when=when), [])]
