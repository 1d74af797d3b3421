"""Turning free text into a safe FTS5 query.

User text never reaches ``MATCH`` as syntax: it is cut into word tokens, each
quoted as a phrase, and the phrases are OR-ed so a memory matching some of the
words still ranks (BM25 orders by how many and how rare). Quoting makes
``C++``, ``sci-fi`` (which FTS5 would parse as a column filter), ``"``, ``*``,
``(`` and apostrophes harmless.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from .database import Database

__all__ = ["STOPWORDS", "build_match", "index_term", "purge_keyword_index", "query_terms"]

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


def build_match(text: str | list[str]) -> str | None:
    """An FTS5 MATCH expression for ``text`` (or its terms), None without content words."""
    terms = query_terms(text) if isinstance(text, str) else text
    if not terms:
        return None
    # Tokens are runs of letters/digits only, so they never contain a double quote.
    return " OR ".join(f'"{term}"' for term in terms)


_porter = snowballstemmer.stemmer("porter")


@lru_cache(maxsize=4096)
def index_term(term: str) -> str:
    """The form FTS5's ``porter`` tokenizer stores ``term`` under.

    Snowball's "porter" is the same algorithm; the rare word where the two differ
    is simply not found in the vocabulary, which keeps the term (the safe side).
    """
    return str(_porter.stemWord(term))


def purge_keyword_index(db: Database) -> None:
    """Merge the index into one segment, dropping deleted rows' tokens for good.

    FTS5 deletes by writing delete markers: a deleted memory's words stop matching at
    once but stay in older segments until a merge. Forgetting has to leave nothing, so
    it pays for this rewrite (proportional to the whole index; see bench/forget.py).
    """
    db.execute("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')")
