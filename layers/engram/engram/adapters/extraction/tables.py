"""The word tables the grammar reads, one JSON file per language (``data/<lang>.json``).

Words live in data, not in code: a new pet, relation, verb or time expression is a line
in the language's file. Loaded once per process, into sets and maps.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["Tables", "relative_times", "tables"]


def _phrases(words: list[str]) -> tuple[tuple[str, ...], ...]:
    """Multi-word entries as word tuples, longest first (so "going to" beats "going")."""
    return tuple(sorted((tuple(w.split()) for w in words), key=len, reverse=True))


def relative_times(time: dict[str, Any]) -> list[tuple[tuple[str, ...], str]]:
    """A language's relative time words as (words, spec), longest first: "minggu lalu"
    -> ``d:-7``, "bulan depan" -> ``m:1``, "geçen yıl" -> ``y:-1``."""
    found = [(tuple(k.split()), f"d:{v}") for k, v in time["relative_days"].items()]
    found += [(tuple(k.split()), f"m:{v}") for k, v in time["relative_months"].items()]
    found += [(tuple(k.split()), f"y:{v}") for k, v in time["relative_years"].items()]
    return sorted(found, key=lambda f: len(f[0]), reverse=True)


@dataclass(frozen=True)
class Tables:
    raw: dict[str, Any]
    subjects: frozenset[str]
    family: frozenset[str]
    pets: frozenset[str]
    adverbs: tuple[tuple[str, ...], ...]
    copulas: frozenset[str]
    clause_determiners: frozenset[str]
    perfect: frozenset[str]
    future: dict[tuple[str, ...], str]
    future_phrases: tuple[tuple[str, ...], ...]
    past_habit: tuple[tuple[str, ...], ...]
    goal_verbs: frozenset[str]
    goal_words: frozenset[str]
    irregular_past: frozenset[str]
    past_as_present: frozenset[str]  # "set", "put": a past that reads as a command too
    # small closed classes the grammar names ("negation", "reflexives", "outings")
    closed: dict[str, frozenset[str]]
    participles: dict[str, str]
    state_verbs: frozenset[str]
    not_facts: frozenset[str]
    light_forms: dict[str, str]
    light_blocks: dict[str, tuple[tuple[str, ...], ...]]
    np_complement: frozenset[tuple[str, ...]]
    copula_frames: dict[tuple[str, ...], str]
    effect_markers: tuple[tuple[str, ...], ...]
    effect_subject_limit: int
    effect_first_person_only: frozenset[str]
    effect_openers: frozenset[str]  # the first word of each marker
    effect_openers_split: frozenset[str]  # ... after "painting's": the word after "is"
    copula_frame_list: tuple[tuple[str, ...], ...]
    past_phrases: dict[tuple[str, ...], str]
    past_phrase_list: tuple[tuple[str, ...], ...]
    intransitive: frozenset[str]
    particles: frozenset[str]
    reporting_adverbs: frozenset[str]
    cuts: tuple[tuple[str, ...], ...]
    pronouns: frozenset[str]
    other_party: frozenset[str]
    function_words: frozenset[str]
    topics: dict[str, tuple[frozenset[str], frozenset[str]]]
    ambiguous_work: frozenset[str]
    body_words_also_adverbs: frozenset[str]  # "back": the body, or "back home"
    time: dict[str, Any]
    time_phrases: tuple[tuple[str, ...], ...]
    scheduled_nouns: frozenset[str]
    upcoming: tuple[tuple[str, ...], ...]


def _load(language: str) -> dict[str, Any]:
    text = resources.files(__package__).joinpath("data", f"{language}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def tables(language: str = "en") -> Tables:
    raw = _load(language)
    time = raw["time"]
    time_words = [
        *time["relative_days"],
        *time["relative_months"],
        *time["relative_years"],
        *time["undated"],
        *time["childhood"],
    ]
    light = raw["light_verbs"]
    return Tables(
        raw=raw,
        subjects=frozenset(raw["subjects"]),
        family=frozenset(raw["relations"]["family"]),
        pets=frozenset(raw["relations"]["pet"]),
        adverbs=_phrases(raw["adverbs"]),
        copulas=frozenset(raw["copulas"]),
        clause_determiners=frozenset(raw["clause_determiners"]),
        perfect=frozenset(raw["perfect"]),
        future={tuple(k.split()): v for k, v in raw["future"].items()},
        future_phrases=_phrases(list(raw["future"])),
        past_habit=_phrases(raw["past_habit"]),
        goal_verbs=frozenset(raw["goal_verbs"]),
        goal_words=frozenset(raw["goal_words"]),
        irregular_past=frozenset(raw["irregular_past"]),
        past_as_present=frozenset(raw["past_as_present"]),
        closed={name: frozenset(words) for name, words in raw["closed"].items()},
        participles=dict(raw["participles"]),
        state_verbs=frozenset(raw["state_verbs"]),
        not_facts=frozenset(raw["not_facts"]),
        light_forms={form: lemma for lemma, forms in light.items() for form in forms},
        light_blocks={k: _phrases(v) for k, v in raw["light_verb_blocks"].items()},
        np_complement=frozenset(tuple(p.split()) for p in raw["np_complement"]),
        copula_frames={tuple(k.split()): v for k, v in raw["copula_frames"].items()},
        effect_markers=_phrases(raw["effects"]["markers"]),
        effect_subject_limit=int(raw["effects"]["subject_limit"]),
        effect_first_person_only=frozenset(raw["effects"]["first_person_only"]),
        effect_openers=frozenset(m.split()[0] for m in raw["effects"]["markers"]),
        effect_openers_split=frozenset(
            m.split()[1] for m in raw["effects"]["markers"] if m.startswith("is ")
        ),
        copula_frame_list=_phrases(list(raw["copula_frames"])),
        past_phrases={tuple(k.split()): v for k, v in raw["past_phrases"].items()},
        past_phrase_list=_phrases(list(raw["past_phrases"])),
        intransitive=frozenset(raw["intransitive_events"]),
        particles=frozenset(raw["particles"]),
        reporting_adverbs=frozenset(raw["reporting_adverbs"]),
        cuts=_phrases(raw["cuts"]),
        pronouns=frozenset(raw["pronouns"]),
        other_party=frozenset(raw["other_party"]),
        function_words=frozenset(raw["function_words"]),
        topics={
            name: (frozenset(t["verbs"]), frozenset(t["words"]))
            for name, t in raw["topics"].items()
        },
        ambiguous_work=frozenset(raw["topics"]["work"]["ambiguous_verbs"]),
        body_words_also_adverbs=frozenset(raw["topics"]["health"]["body_words_also_adverbs"]),
        time=time,
        time_phrases=_phrases(time_words),
        scheduled_nouns=frozenset(raw["scheduled_nouns"]),
        upcoming=_phrases(raw["upcoming"]),
    )
