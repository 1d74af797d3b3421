"""Turning free text into a safe FTS5 query.

User text never reaches ``MATCH`` as syntax: it is cut into word tokens, each
quoted as a phrase, and the phrases are OR-ed so a memory matching some of the
words still ranks (BM25 orders by how many and how rare). Quoting makes
``C++``, ``sci-fi`` (which FTS5 would parse as a column filter), ``"``, ``*``,
``(`` and apostrophes harmless.
"""

from __future__ import annotations

from engram.adapters.libsql.database import Database
from engram.domain.terms import STOPWORDS, index_term, query_terms

__all__ = ["STOPWORDS", "build_match", "index_term", "purge_keyword_index", "query_terms"]


def build_match(text: str | list[str]) -> str | None:
    """An FTS5 MATCH expression for ``text`` (or its terms), None without content words."""
    terms = query_terms(text) if isinstance(text, str) else text
    if not terms:
        return None
    # Tokens are runs of letters/digits only, so they never contain a double quote.
    return " OR ".join(f'"{term}"' for term in terms)


def purge_keyword_index(db: Database) -> None:
    """Merge the index into one segment, dropping deleted rows' tokens for good.

    FTS5 deletes by writing delete markers: a deleted memory's words stop matching at
    once but stay in older segments until a merge. Forgetting has to leave nothing, so
    it pays for this rewrite (proportional to the whole index; see bench/forget.py).
    """
    db.execute("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')")
