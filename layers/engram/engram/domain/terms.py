"""Words of a text as search sees them: content words (stopwords dropped) and the stems
FTS5's ``porter`` tokenizer indexes them under. Shared by the keyword index (which
builds its MATCH from them) and retrieval (which measures how much of a query a memory
covers, for the relevance floor)."""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

__all__ = [
    "SPEAKER_PREFIX_CHARS",
    "STOPWORDS",
    "coverage",
    "index_term",
    "prefix_speaker",
    "proper_names",
    "query_terms",
    "subject_words",
]

# How much of a memory's opening a "Name: " transcript prefix may take.
SPEAKER_PREFIX_CHARS = 42
_SPEAKER_PREFIX = re.compile(r"^([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}): \S")
# Line labels that look like names but say what a line is, not who spoke it.
_LABELS = frozenset(
    "note notes update todo q a re subject warning error step tip answer question"
    " summary example reminder fyi ps edit important".split()
)


def prefix_speaker(opening: object) -> str | None:
    """The speaker a transcript line names at its start ("Caroline: I went to..."), for
    memories imported as plain lines with no ``metadata.speaker``; None otherwise."""
    if not isinstance(opening, str):
        return None
    match = _SPEAKER_PREFIX.match(opening)
    if match is None or match[1].lower() in _LABELS or any(c.isdigit() for c in match[1]):
        return None
    return match[1]


_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_MAX_TERMS = 32

# Function words carry no topic; matching on them only adds noise to BM25.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each few for from further had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how
    how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
    mustn't my myself no nor not of off on once only or other ought our ours ourselves out
    over own same shan't she she'd she'll she's should shouldn't so some such than that
    that's the their theirs them themselves then there there's these they they'd they'll
    they're they've this those through to too under until up very was wasn't we we'd we'll
    we're we've were weren't what what's when when's where where's which while who who's
    whom why why's will with won't would wouldn't you you'd you'll you're you've your yours
    yourself yourselves s t d ll m re ve also just did does get got
    """.split()
)


def query_terms(text: str) -> list[str]:
    """Distinct lower-case content words of ``text``, in order, at most 32."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(text.lower()):
        if token not in STOPWORDS and token not in seen:
            seen[token] = None
            if len(seen) == _MAX_TERMS:
                break
    return list(seen)


_porter = snowballstemmer.stemmer("porter")


@lru_cache(maxsize=65536)  # every candidate's words are stemmed for coverage, per query
def index_term(term: str) -> str:
    """The form FTS5's ``porter`` tokenizer stores ``term`` under.

    Snowball's "porter" is the same algorithm; the rare word where the two differ
    is simply not found in the vocabulary, which keeps the term (the safe side).
    """
    return str(_porter.stemWord(term))


def coverage(terms: list[str], text: str) -> float:
    """The share of ``terms`` (query words) that ``text`` contains, compared as stems."""
    if not terms:
        return 0.0
    stems = text_stems(text)
    return sum(index_term(t) in stems for t in terms) / len(terms)


@lru_cache(maxsize=8192)  # a key's candidates recur from query to query; ~1 KB each
def text_stems(text: str) -> frozenset[str]:
    """The stems of every word of ``text``: what ``coverage`` compares against."""
    return frozenset(map(index_term, _TOKEN.findall(text.lower())))


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z\u00c0-\u024f]+(?:[-'][A-Za-z]+)?)\b")
_NOT_NAMES = frozenset(
    "i monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december christmas easter ok okay "
    "please thanks hi hello hey yes no".split()
)


def proper_names(text: str) -> list[str]:
    """Names in ``text``: capitalised words that do not start a sentence ("What did
    Caroline research?" -> ``caroline``), lower-cased; days, months and "I" aside."""
    found: dict[str, None] = {}
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text.strip()):
        for match in _NAME.finditer(sentence.strip()):
            word = match.group(1).split("'")[0].lower()
            if word not in _NOT_NAMES and word not in STOPWORDS:
                found[word] = None
    return list(found)


# The words people ask about a kind of fact with ("Where do I live?" for a location).
_ASKED_AS = {
    "location": "live lives living located city where",
    "hometown": "from grew born hometown where",
    "employer": "work works company employer job",
    "role": "job work role title profession occupation",
    "name": "name called",
    "age": "age old",
    "timezone": "timezone time zone",
    "diet": "diet eat food",
    "marital": "married marriage husband wife spouse partner wedding divorced engaged",
    "pronouns": "pronouns",
    "native_language": "language speak",
    "deadline": "deadline due when",
}


def subject_words(subject: object) -> str:
    """Searchable words of a fact's subject ("backend_framework" -> "backend framework";
    an identity aspect adds the words it is asked with)."""
    if not isinstance(subject, str) or not subject:
        return ""
    words = subject.replace("_", " ")
    asked = _ASKED_AS.get(subject)
    return f"{words} {asked}" if asked else words
