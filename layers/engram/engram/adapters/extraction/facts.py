"""Facts as the rules build them (the types themselves are ``engram.domain.models.facts``).

A fact's key names it for upserts (``category:slug`` of its object, or of its aspect
for identity and instructions), and its metadata says what it is about (``object``:
the canonical name of the thing; ``subject``: the kind of thing, when known), which
is how a later correction finds it.
"""

from __future__ import annotations

import re

import snowballstemmer

from engram.adapters.extraction import rx
from engram.adapters.extraction.lexicon import (
    FILLER_EDGES,
    NAME_SHAPED,
    NON_OBJECTS,
    POINTER_DETERMINERS,
    canonical,
    is_known,
)
from engram.adapters.extraction.text import INNER_DOT, restore
from engram.domain.models.facts import (
    FACT_MAX_CHARS,
    FACT_MIN_CHARS,
    USAGE,
    ExtractedFact,
    Extraction,
    Retraction,
    slug_of,
)

__all__ = [
    "MAX_CONTENT_CHARS",
    "MIN_CONTENT_CHARS",
    "STEMMER",
    "USAGE",
    "ExtractedFact",
    "Extraction",
    "Retraction",
    "clean_object",
    "fact_key",
    "head",
    "object_id",
    "slug",
    "split_list",
    "trim_clause",
]

STEMMER = snowballstemmer.stemmer("english")
MIN_CONTENT_CHARS = FACT_MIN_CHARS
MAX_CONTENT_CHARS = FACT_MAX_CHARS
_MAX_SLUG = 60


def slug(text: str) -> str:
    """``slug_of`` the text as written (dots and commas inside tokens restored)."""
    return slug_of(restore(text))


def fact_key(category: str, obj: str) -> str:
    """``category:slug`` with slug in ``[a-z0-9_]+``: stable for the same object."""
    return f"{category}:{slug(obj)}"


_TAIL = rx.compile(
    r"\s+(?:for|in|on|at|with|to|from|since|during|because|as|when|via|through|by|across|"
    r"every|each|at)\b.*$",
    re.IGNORECASE,
)


def head(text: str) -> str:
    """The thing itself without what follows it ("Sublime Text for everything")."""
    return _TAIL.sub("", text).strip() or text


def object_id(text: str) -> str:
    """What a fact is about, as corrections name it: a known thing's canonical name
    ("Postgres for this project" -> ``postgresql``), else the slug of its head words
    ("Bitbucket for our repos" -> ``bitbucket``)."""
    return canonical(restore(text)) or slug(head(text))


# Clauses after these words explain the fact rather than state it.
_CLAUSE_CUT = rx.compile(
    r"\s+(?:because|since|but|although|though|so\s+that|unless|whereas|while|which|who|"
    r"and\s+(?=(?:\S+\s+){0,4}?(?:is|are|was|were|it|that)\b)|"
    r"as\s+it|as\s+they|if|when|whenever|until|cause|cuz|so\s+(?:I|we)|and\s+(?:I|we|it|"
    r"they|you|he|she)\b|as\s+(?:I|we)\b|like\s+I\b|even\s+though)\b.*$"
    r"|\s+[-\u2013\u2014(].*$",
    re.IGNORECASE,
)


# Amounts before a thing ("a little Clojure", "lots of Python") say how much, not what.
_QUANTIFIERS = rx.compile(
    r"^(?:a\s+little(?:\s+bit\s+of)?|a\s+bit\s+of|a\s+lot\s+of|lots\s+of|some|all|plenty\s+of|"
    r"tons\s+of|mostly|mainly)\s+(?=\S)",
    re.IGNORECASE,
)


def trim_clause(raw: str) -> str:
    """A whole clause kept as content, without trailing explanation or filler."""
    value = re.sub(r"\s+", " ", _CLAUSE_CUT.sub("", raw)).strip(" \t\"'`*_,:-")
    previous = None
    while previous != value:
        previous = value
        value = FILLER_EDGES.sub("", value).strip(" \t\"'`*_,:-")
    return value


# A time word ends the object ("sushi anymore after that food poisoning" -> "sushi").
_TIME_CUT = rx.compile(
    r"\s+(?:any\s*more|any\s+longer|these\s+days|nowadays|(?:this|last|next)\s+(?:week|month|"
    r"quarter|year|spring|summer|autumn|fall|winter|sprint|time)|yesterday|today|recently|"
    r"a\s+while\ago|(?:a\s+few|a\s+couple\s+of|two|three|four|five|several|\d+)\s+(?:days|weeks|"
    r"months|years)\s+ago|(?:back\s+)?in\s+(?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december|the\s+spring|the\s+summer|the\s+autumn|the\s+fall|"
    r"the\s+winter|\d{4}))\b.*$",
    re.I,
)


def clean_object(raw: str) -> str:
    """The object of a statement without trailing explanation or filler, or "" when it
    is not a thing ("it", "that one", "your idea")."""
    value = _CLAUSE_CUT.sub("", _TIME_CUT.sub("", raw))
    value = re.sub(r"\s+", " ", value).strip(" \t\"'`*_,:-")
    previous = None
    while previous != value:
        previous = value
        value = FILLER_EDGES.sub("", value).strip(" \t\"'`*_,:-")
    value = _QUANTIFIERS.sub("", value)
    value = re.sub(r"^(?:a|an)\s+(?=[A-Z0-9])", "", value)  # "a ThinkPad X1" names a ThinkPad
    words = value.split(" ")
    first = words[0].lower() if words and words[0] else ""
    short_name = is_known(restore(value)) or re.fullmatch(r"[A-Z][A-Z0-9]", value) is not None
    if (len(value) < MIN_CONTENT_CHARS and not short_name) or first in NON_OBJECTS:
        return ""
    if first in POINTER_DETERMINERS and len(words) <= 3:
        return ""
    if "[REDACTED]" in value:
        return ""  # a fact about a secret is not worth keeping once the secret is gone
    return value


_LIST_SEPARATOR = rx.compile(
    r"\s*,\s*(?:and\s+|or\s+|&\s+)?|\s+(?:and|or|&|as\s+well\s+as|plus|with|nor)\s+", re.I
)


_ASIDE = rx.compile(
    r",\s+(?:been|would|will|have|has|had|was|were|is|are|did|do|does|can|could|should|went|"
    r"got|just|which|who|so|but)\b",
    re.I,
)
_FINAL_JOIN = rx.compile(r"(?:,|\s)\s*(?:and|or|&|as\s+well\s+as|plus)\s+\S+[^,]*$", re.I)


# "built on Hono and runs on Bun": the second item is what the verb is on.
_VERB_LEAD = rx.compile(
    r"^(?:runs?|uses?|lives?|sits?|is\s+(?:hosted|deployed|built|stored)|goes|talks\s+to|"
    r"deploys?\s+(?:to|on))\s+(?:on|in|with|through|to)?\s*",
    re.I,
)


def split_list(value: str) -> list[str]:
    """ "React, Node.js and MongoDB" -> three objects. A bare "and" splits only names
    ("Python and Go"), not phrases ("salt and pepper chips"); commas without a final
    "and" are an aside ("Python, mostly for scripts"): the object is what precedes it."""
    if not re.search(r",|\band\b|\bor\b|&|\bplus\b|\bas well as\b|\bwith\b|\bnor\b", value, re.I):
        return [value]
    # "hiking in the Dolomites, been 4 times now and would go again": what follows a
    # comma that starts with a verb is an aside about the object, not another object.
    aside = _ASIDE.search(value)
    if aside:
        return split_list(value[: aside.start()])
    if re.search(r"\bwith\s+(?:an?|the|its|their)\s", value, re.I):
        return [value]  # "a MacBook Pro with an M2 chip": one thing, described
    if "," in value and not _FINAL_JOIN.search(value):
        items = [p.strip() for p in value.split(",")]
        if len(items) >= 3 and all(_named(p) and len(p.split()) <= 3 for p in items):
            return items  # "Radiohead, Portishead, Massive Attack": names, listed
        return [items[0]]
    parts = [_VERB_LEAD.sub("", p.strip()) for p in _LIST_SEPARATOR.split(value) if p and p.strip()]
    if len(parts) >= 2 and all(re.search(r"\w+ing$", p) and len(p.split()) <= 3 for p in parts):
        return parts  # "rock climbing and sea kayaking": two pastimes
    if len(parts) >= 2 and len(parts[-1].split()) > 1:
        # What follows the last item is about the whole list ("A, B and C for the site").
        parts[-1] = head(parts[-1])
    if len(parts) < 2 or any(len(p.split()) > 5 for p in parts):
        return [value]
    if all(_named(p) for p in parts):
        return parts
    with_split = re.search(r"\bwith\b", value, re.I)
    if with_split or ("," not in value and not all(len(p.split()) == 1 for p in parts)):
        return [value]
    return parts


def _named(part: str) -> bool:
    plain = restore(part).strip()
    return (
        is_known(plain)
        or plain[:1].isupper()
        or any(c in plain for c in ".#+" + INNER_DOT)
        or NAME_SHAPED.search(plain) is not None
    )
