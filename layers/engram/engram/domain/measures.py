"""Limits and targets with a number: a new figure for the same thing replaces the old.

"The page must load in under 3 seconds" and, later, "page load has to be under 1.5
seconds" are worded differently, so their keys differ; they are the same limit because
both measure time and name the same thing (page, load). "Budget update: the tooling cap
is now $8,000" replaces "we can't spend more than $5,000 on tooling" the same way
(money; tooling). Two limits on different things ("the login API must answer within
200 ms", "the search API within 500 ms") each keep their own figure, and so does a
narrower one ("the login page" beside "the page").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import snowballstemmer

__all__ = ["Measure", "measure", "same_limit"]

_STEMMER = snowballstemmer.stemmer("english")

_NUMBER = r"\d+(?:[.,]\d+)*"
_UNITS: dict[str, str] = {
    **dict.fromkeys(
        "ms msec millisecond milliseconds s sec secs second seconds min mins minute minutes "
        "h hr hrs hour hours day days week weeks month months year years".split(),
        "time",
    ),
    **dict.fromkeys("kb mb gb tb kib mib gib tib byte bytes".split(), "data"),
    **dict.fromkeys("% percent per cent".split(), "percent"),
    **dict.fromkeys("usd eur gbp dollars dollar euros euro pounds quid bucks k".split(), "money"),
}
_QUANTITY = re.compile(
    r"(?P<cur>[$€£¥])\s?(?P<n>" + _NUMBER + r")\s?(?P<mult>k|m|bn|million|thousand)?\b"
    r"|(?P<n2>" + _NUMBER + r")\s?(?P<unit>%|[a-z]+)?",
    re.I,
)
# Words that frame a limit rather than say what it limits.
_FRAME = frozenset(
    "the a an to of in on at for under over within below above less more than most least "
    "no not never must should need needs has have had be is are was were will can cannot "
    "could may might keep stay up down by with from new now update updated target goal cap "
    "capped limit limits limited max maximum min minimum only just always per each "
    "every our my we i it its this that these those so and or do does total spend spending "
    "spent go get take takes there than then no longer any anymore exceed exceeds "
    "allowed allow ceiling threshold".split()
)


@dataclass(frozen=True)
class Measure:
    kind: str
    value: str
    topic: frozenset[str]


def measure(content: str) -> Measure | None:
    """The first quantity of ``content`` (its kind and figure) and what it is about."""
    text = content.lower()
    for match in _QUANTITY.finditer(text):
        if match.group("cur"):
            kind = "money"
            value = match.group("n").replace(",", "") + (match.group("mult") or "")
        else:
            unit = (match.group("unit") or "").lower()
            kind = _UNITS.get(unit) or (_stem(unit) if unit else "")
            value = match.group("n2").replace(",", "")
        if kind:
            return Measure(kind, value, _topic(text[: match.start()] + " " + text[match.end() :]))
    return None


def same_limit(a: Measure, old: str) -> bool:
    """Whether the new limit measured ``a`` sets a different figure for the one ``old``
    states (the new fact is measured once, its rivals each in turn)."""
    b = measure(old)
    if b is None or a.kind != b.kind or a.value == b.value:
        return False
    if not a.topic or not b.topic:
        return False
    # The new figure's thing within the old one's: "page load under 1.5 s" after "the page
    # must load in under 3 s"; "the login page must load in under 1 s" is a narrower limit
    # of its own and leaves the page's.
    return a.topic <= b.topic


def _topic(text: str) -> frozenset[str]:
    words = re.findall(r"[a-z][a-z'-]+", text)
    return frozenset(_stem(w) for w in words if w not in _FRAME and w not in _UNITS and len(w) > 1)


def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))
