"""The words of a clause as the life grammar sees them, and the tests it makes on them:
which phrase of a word list starts at a word, whether a time expression does (and the
date it names), whether a clause of its own begins, whether a verb is past or states
something.

Kept apart from the grammar (``life`` and ``life_statement``), which walks the words
with these: they are the vocabulary-level reading, one word or phrase at a time, while
the grammar decides what a run of them says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.adapters.extraction.tables import Tables

__all__ = ["Word", "clause_after", "is_past", "phrase_at", "split_words", "states", "time_at"]

_WORD = re.compile(r"[^\s,;:!?()\"]+|[,;:]")
_EDGE = "'\u2019\"`*_.-"


@dataclass
class Word:
    text: str
    low: str
    start: int
    end: int


def split_words(clause: str) -> list[Word]:
    found = []
    for match in _WORD.finditer(clause):
        text = match.group(0).strip(_EDGE) or match.group(0)
        found.append(Word(text, text.lower(), match.start(), match.end()))
    return found


def phrase_at(words: list[Word], i: int, phrases: tuple[tuple[str, ...], ...]) -> int:
    """The length of the longest phrase of ``phrases`` starting at word ``i`` (0: none)."""
    for phrase in phrases:
        n = len(phrase)
        if i + n <= len(words) and all(words[i + k].low == phrase[k] for k in range(n)):
            return n
    return 0


def clause_after(words: list[Word], i: int, t: Tables) -> bool:
    """Whether a clause of its own starts at word ``i``: a determiner, a noun or two, then
    its verb ("and the people are awesome", "and my kids were thrilled"), or a bare noun
    and its verb ("and things are looking up")."""
    if i + 1 < len(words) and words[i + 1].low in t.copulas and words[i].low not in t.copulas:
        return True  # "and things are looking up", "and business is booming"
    if i >= len(words) or words[i].low not in t.clause_determiners:
        return False
    return any(
        k < len(words) and words[k].low in t.copulas for k in range(i + 2, min(i + 4, len(words)))
    )


def names_people(words: list[Word], t: Tables) -> bool:
    """Whether words after "my"/"our" name people or pets, and only that ("colleagues",
    "best friend", "dog Max"): not a thing ("new laptop"), nor someone who did something
    ("mum got sick", "boss retired"), which is a clause of its own."""
    if not words or any(is_past(w.low, t) or w.low in t.copulas for w in words):
        return False
    head = words[-2] if len(words) > 1 and words[-1].text[:1].isupper() else words[-1]
    return head.low in t.family or head.low in t.pets or head.low in t.closed["companions"]


def time_at(words: list[Word], i: int, t: Tables) -> tuple[int, str | None]:
    """A time expression starting at word ``i``: its length and relative spec."""
    if i >= len(words):
        return 0, None
    time = t.time
    n = phrase_at(words, i, t.time_phrases)
    if n:
        said = " ".join(w.low for w in words[i : i + n])
        if said in time["relative_days"]:
            return n, f"d:{time['relative_days'][said]}"
        if said in time["relative_months"]:
            return n, f"m:{time['relative_months'][said]}"
        if said in time["relative_years"]:
            return n, f"y:{time['relative_years'][said]}"
        if said in time["childhood"]:
            return n, "childhood"
        return n, None  # "recently", "lately": time words without a date
    low = words[i].low
    following = words[i + 1].low if i + 1 < len(words) else ""
    if low in ("last", "next", "this", "on"):
        # "last Fri", "next Tues": chat shortens the day's name
        following = time["weekday_abbreviations"].get(following, following)
    # "last Saturday", "next Friday", "on Sunday", "last May", "in February", "next summer"
    if low in ("last", "next", "this", "on", "in") and following in time["weekdays"]:
        # "on Monday" is the last one, or the next in a plan: the statement decides
        which = {"last": "last", "on": "on"}.get(low, "next")
        return 2, f"wd:{which}:{following}"
    if low in ("last", "next", "in", "this") and following in time["months"]:
        which = "last" if low == "last" else "next"
        return 2, f"mo:{which}:{following}"
    if low in ("last", "next", "this") and following in (
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
    ):
        return 2, "season"  # a time of the year, of no date: not today either
    # "three weeks ago", "a few days ago", "in two weeks", "2 months ago"
    number = time["numbers"].get(low) if not low.isdecimal() else int(low)  # not "²"
    if number is not None and i + 2 < len(words):
        unit = words[i + 1].low if words[i + 1].low != "few" else ""
        step = 1 if words[i + 1].low in ("few", "couple") else 0
        if step and i + 3 < len(words):
            unit = words[i + 2].low if words[i + 2].low != "of" else words[i + 3].low
            step = 2 if words[i + 2].low != "of" else 3
        else:
            step = 1
        # ``step`` is where the unit is; "ago" follows it
        if unit in time["units"] and i + step + 1 < len(words) and words[i + step + 1].low == "ago":
            many = time["numbers"][words[i + 1].low] if step > 1 else int(number)
            if many > 120:
                return step + 2, None  # "1000000 days ago" is a way of speaking, no date
            if unit.startswith(("month", "year")):
                return step + 2, f"{unit[0]}:{-many}"  # "two years ago": a year, no day
            return step + 2, f"d:{-time['units'][unit] * many}"
    if low == "in" and i + 2 < len(words):
        count = time["numbers"].get(words[i + 1].low)
        unit = words[i + 2].low
        if count is not None and unit in time["units"]:
            return 3, f"d:{time['units'][unit] * int(count)}"
    return 0, None


# "retook", "rebuilt", "outgrew", "overcame", "undid": a prefix leaves the past irregular
_PREFIXES = ("re", "out", "over", "under", "un", "mis", "with")


def is_past(low: str, t: Tables) -> bool:
    if low in t.irregular_past or low in t.participles or (len(low) > 4 and low.endswith("ed")):
        return True
    return any(
        low.startswith(p) and len(low) - len(p) > 2 and low[len(p) :] in t.irregular_past
        for p in _PREFIXES
    )


def states(words: list[Word], i: int, t: Tables) -> bool:
    """Whether the verb at ``i`` states something: a light verb ("get", "go", "take",
    "make"...) only before content ("got a puppy", but not "got it", "take care")."""
    low = words[i].low
    light = t.light_forms.get(low)
    if light is not None:
        if i + 1 >= len(words) or words[i + 1].low in (",", ";", ":"):
            return False
        blocked = phrase_at(words, i + 1, t.light_blocks.get(light, ()))
        if blocked == 1 and low == "did" and words[i + 1].low in ("a", "an"):
            return True  # "did a charity event" happened; "doing a favour for" need not
        return blocked == 0
    return low not in t.not_facts and low not in t.pronouns and low not in t.function_words
