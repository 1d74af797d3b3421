"""Turkish statements: the common ways of stating each kind of fact.

Turkish puts the object before the verb and marks its case with a suffix, after an
apostrophe for names ("Python'u seviyorum"): the object is the words before the
verb, its suffix dropped. The rules of particular statements are in ``turkish_rules``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import Step, make_fact
from engram.adapters.extraction.facts import USAGE, Retraction, object_id
from engram.adapters.extraction.readings import E, F, read_match, strip_case_suffix
from engram.adapters.extraction.turkish_life import read_turkish_event, read_turkish_life
from engram.adapters.extraction.turkish_rules import TR_ADVERBS, TR_RULES

__all__ = ["read_turkish"]


def read_turkish(clause: str) -> list[Step]:
    """Turkish joins statements with "ve" and commas ("Ankara'da yaşıyorum ve Java
    kullanıyorum"): each part is read on its own, by the verb-final grammar over the word
    tables first (``data/tr.json``), then by the rules of particular statements."""
    labelled = _labelled(clause)
    if labelled:
        return labelled
    steps: list[Step] = []
    parts = re.split(r"\s*,\s*|\s+ve\s+", clause)
    # "Bir kızım ve bir oğlum var": each of them is had
    had = len(parts) > 1 and re.search(r"\bvar[.!]?$", parts[-1]) is not None
    for part in parts:
        if had and not part.endswith("var"):
            part += " var"
        found = read_turkish_life(part) or _verb_final(part)
        if not found:
            for kind, pattern in rx.able(TR_RULES, part):
                match = pattern.search(part)
                if match is None:
                    continue
                found = read_match(kind, match, TR_ADVERBS, strip=strip_case_suffix)
                if found:
                    break
        if not found:
            found = read_turkish_event(part)
        steps += found or []
    return steps


# -- the verb-final grammar ----------------------------------------------------------------


@dataclass(frozen=True)
class _Tables:
    verbs: tuple[tuple[tuple[str, ...], str], ...]  # (verb phrase, kind), longest first
    # The phrases by their first word: a part's words are each looked up once.
    verb_starts: dict[str, tuple[tuple[tuple[str, ...], str], ...]]
    labels: tuple[tuple[tuple[str, ...], str], ...]
    frequency: dict[str, str]
    better: tuple[tuple[str, ...], ...]
    lead: frozenset[str]
    trailing: frozenset[str]
    templates: dict[str, str]


@cache
def _tables() -> _Tables:
    raw = json.loads(resources.files(__package__).joinpath("data", "tr.json").read_text("utf-8"))

    def phrases(table: dict[str, list[str]]) -> tuple[tuple[tuple[str, ...], str], ...]:
        found = [(tuple(p.split()), kind) for kind, ps in table.items() for p in ps]
        return tuple(sorted(found, key=lambda f: len(f[0]), reverse=True))

    verbs = phrases(raw["verbs"])
    starts: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for phrase, kind in verbs:
        starts.setdefault(phrase[0], []).append((phrase, kind))
    return _Tables(
        verbs=verbs,
        verb_starts={k: tuple(v) for k, v in starts.items()},
        labels=phrases(raw["labels"]),
        frequency=dict(raw["frequency"]),
        better=tuple(tuple(p.split()) for p in raw["better_to_me"]),
        lead=frozenset(raw["lead_words"]),
        trailing=frozenset(raw["trailing_words"]),
        templates=dict(raw["templates"]),
    )


def _lower(word: str) -> str:
    return word.replace("I", "ı").replace("İ", "i").lower()


def _words(text: str) -> list[str]:
    return [w.strip(".!?") for w in text.split() if w.strip(".!?")]


def _at(lows: list[str], i: int, phrase: tuple[str, ...]) -> bool:
    return tuple(lows[i : i + len(phrase)]) == phrase


def _labelled(clause: str) -> list[Step]:
    """ "Stack'imiz şöyle: Next.js, PostgreSQL", "Benim favorim VS Code", "Benim için daha
    temiz gelen fonksiyonel yaklaşım": a label names the kind, what follows is the fact."""
    t = _tables()
    head, colon, tail = clause.partition(":")
    words = _words(head)
    lows = [_lower(w) for w in words]
    labels = {phrase[0] for phrase, _ in t.labels}
    for phrase, kind in t.labels:
        for i in (k for k, low in enumerate(lows) if low in labels and low == phrase[0]):
            if not _at(lows, i, phrase):
                continue
            rest = tail if colon else " ".join(words[i + len(phrase) :])
            value = _value(_words(rest), t, whole=True)
            if value and (colon or i + len(phrase) < len(lows)):
                return _fact_of(kind, value, "")
    for phrase in t.better:
        if _at(lows, 0, phrase):
            value = _value(words[len(phrase) :], t, whole=True)
            return _fact_of("preference", value, "") if value else []
    return []


def _verb_final(part: str) -> list[Step]:
    """The fact a part states by its verb: the object is the words before the verb."""
    t = _tables()
    words = _words(part)
    lows = [_lower(w) for w in words]
    found = (
        (i, phrase, kind)
        for i, low in enumerate(lows)
        for phrase, kind in t.verb_starts.get(low, ())
        if _at(lows, i, phrase)
    )
    # The longest verb phrase wins ("geçmeye karar verdim" over "karar verdim").
    best = max(found, key=lambda f: len(f[1]), default=None)
    if best is None:
        return []
    i, phrase, kind = best
    before = words[:i]
    adverb = ""
    for k, word in enumerate(lows[:i]):
        joined = " ".join(lows[k : k + 2])
        if joined in t.frequency or word in t.frequency:
            adverb = t.frequency.get(joined) or t.frequency[word]
    if adverb and kind in ("pattern", "tech_preference", "decision"):
        # "Genelde functional component kullanırım": a habit, said as it is said
        kept = [w for w in words if _lower(w) not in t.frequency and _lower(w) != "ben"]
        content = " ".join(w for w in kept if not _is_frequency(w, t))
        return _fact_of("pattern", content, f"{adverb} ")
    whole = kind in ("requirement", "constraint", "pattern")
    value = _value(before, t, whole=whole)
    if not value:
        return []
    if kind == "switch":
        old = next((strip_case_suffix(w) for w in before if _ablative(w)), "")
        # "Geçen hafta React'e geçtim": time words and pronouns are no part of the tool
        new = _value([w for w in before if not _ablative(w)], t, whole=True)
        return _switch(new or value, old)
    verb = " ".join(lows[i : i + len(phrase)])
    if kind == "constraint":
        lead = "stuck with" if "mecbur" in verb else "cannot use"
        return _fact_of(kind, value, f"{lead} ")
    return _fact_of(kind, value, "")


def _is_frequency(word: str, t: _Tables) -> bool:
    return any(_lower(word) in key.split() for key in t.frequency)


def _ablative(word: str) -> bool:
    return bool(re.search(r"'(?:den|dan|ten|tan)$", word))


def _value(words: list[str], t: _Tables, *, whole: bool) -> str:
    """The object: the words left once pronouns, adverbs and particles are set aside, and
    the last one's case suffix dropped; for a preference or a choice, at most the three
    words next to the verb (what is liked, not what it is for)."""
    kept = list(words)
    while kept and _lower(kept[-1]) in t.trailing:
        kept.pop()
    if not whole:
        near: list[str] = []
        while kept and (_lower(kept[-1]) in t.lead or _lower(kept[-1]) in ("ile", "için")):
            kept.pop()  # "daha çok", "bir türlü", "ile": said of the verb, not the object
        for word in reversed(kept):
            low = _lower(word)
            if low in t.lead or low == "için" or len(near) == 3:
                break
            near.insert(0, word)
        kept = near
    while kept and _lower(kept[0]) in t.lead:
        kept.pop(0)
    if not kept:
        return ""
    kept[-1] = strip_case_suffix(kept[-1])
    kept = [w for w in kept if w]
    return " ".join(kept).strip(" ,.")


def _fact_of(kind: str, value: str, lead: str) -> list[Step]:
    t = _tables()
    if not value:
        return []
    template = t.templates.get(kind, "{x}")
    content = template.replace("{adv}", lead).replace("{x}", value)
    if kind == "constraint":
        content = lead + value
    category = {"dislike": "preference"}.get(kind, kind)
    type_ = E if kind == "decision" else F
    fact = make_fact(
        category, type_, value, content, negative=kind == "dislike", about=object_id(value)
    )
    return [(fact, [])]


def _switch(new: str, old: str) -> list[Step]:
    """ "npm'den pnpm'e geçtim": a decision to use the new, which retires the old."""
    fact = make_fact("decision", E, new, f"switched to {new}", about=object_id(new))
    retired = [Retraction(object_id(old), USAGE, replaced_by=fact)] if old else []
    return [(fact, retired)]
