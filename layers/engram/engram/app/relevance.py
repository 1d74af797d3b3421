"""The relevance floor: what the ranking found is injected only when it bears on the
message (bench/relevance.py measures it on LoCoMo)."""

from __future__ import annotations

from collections.abc import Callable

from engram.app.tiers import Outcome
from engram.domain.errors import StorageError
from engram.domain.models import Memory, MemorySettings, RetrievalRequest
from engram.domain.terms import coverage, proper_names, query_terms, subject_words

__all__ = ["FLOOR_BY_SOURCE", "KEYWORD_COVERAGE", "UNKNOWN_MODEL_FLOOR", "apply_floor"]

# The relevance floor (bench/relevance.py): a memory is injected when its cosine to the
# query reaches the floor of the embedder that made it, or when it matches keywords
# covering this share of the query's content words. Cosines differ by model, so each
# local model has its own calibrated floor; a remote model's is unknown, so vectors
# alone never pass it and only keyword evidence (or an explicit setting) counts.
FLOOR_BY_SOURCE = {"static": 0.3, "transformers": 0.3}
UNKNOWN_MODEL_FLOOR = 1.0
KEYWORD_COVERAGE = 0.5


def apply_floor(
    request: RetrievalRequest,
    settings: MemorySettings,
    outcome: Outcome,
    mentions: Callable[[list[str]], set[str]],
) -> None:
    """Drop what is not relevant enough to inject; say so when nothing is left.

    A question naming someone or something no memory mentions has nothing in memory
    ("What did Caroline say?" to a key that never heard of Caroline): nothing goes
    in. A question whose names the memories do know is anchored by them, and the
    ranking decides. Any other question needs, per memory, a cosine at the
    embedder's floor or keywords covering half its words.
    """
    terms = query_terms(request.query)
    for candidate in outcome.ranked:
        candidate.coverage = coverage(terms, _searchable(candidate.memory))
    floor = request.relevance_floor
    if floor is None:
        floor = settings.relevance_floor
    if floor is None:
        floor = FLOOR_BY_SOURCE.get(outcome.embedding_source or "", UNKNOWN_MODEL_FLOOR)
    if floor <= 0 or not outcome.ranked:
        return
    names = proper_names(request.query)
    if names:
        if {s.lower() for s in outcome.speakers} & set(names):
            return
        try:
            known = mentions(names)
        except StorageError:
            known = set(names)  # cannot tell: leave the ranking as it is
        if known:
            return
        outcome.reasons.append(f"nothing relevant: no memory mentions {', '.join(sorted(names))}")
        outcome.ranked = []
        return
    outcome.floor = floor
    kept = [
        c
        for c in outcome.ranked
        if (c.vec_score is not None and c.vec_score >= floor)
        or (c.coverage is not None and c.coverage >= KEYWORD_COVERAGE)
    ]
    if not kept:
        outcome.reasons.append(
            f"nothing relevant: {len(outcome.ranked)} candidates below the relevance floor"
        )
    outcome.ranked = kept


def _searchable(memory: Memory) -> str:
    """A memory's words as keyword search sees them, with the kind of thing it is about
    ("use Django" is about a backend framework)."""
    return f"{memory.key} {memory.content} {subject_words(memory.metadata.get('subject'))}"
