"""Combining keyword and vector evidence into one ranking.

``weighted`` (the default) adds, per memory: BM25 squashed with log1p and divided
by the query's best (0..1), the cosine of the query to the memory's (neighbour-
smoothed) vector, and a bonus when the memory's ``metadata.speaker`` is a person
the query names. ``rrf`` is Reciprocal Rank Fusion, sum of 1/(k + rank), which
ignores scores. On LoCoMo (docs/retrieval.md) RRF k=60 fell below BM25 alone,
while the weighted sum beat both parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from engram.ports import DenseScores

__all__ = [
    "DENSE_WEIGHT",
    "SPEAKER_BONUS",
    "keyword_by_id",
    "named_speakers",
    "partial_weighted",
    "rrf",
    "strip_names",
    "weighted",
]

DENSE_WEIGHT = 1.0
SPEAKER_BONUS = 0.3


def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"\b" + re.escape(name) + r"(?:'s|’s)?\b", re.IGNORECASE)


def named_speakers(query: str, speakers: Iterable[str | None]) -> set[str]:
    """The speakers (``metadata.speaker`` values) the query mentions by name."""
    return {s for s in set(speakers) if s and _name_pattern(s).search(query)}


def strip_names(query: str, names: Iterable[str]) -> str:
    """The query without the names: "What did Caroline research?" is about what Caroline
    said, not about the turns where someone else says her name."""
    for name in names:
        query = _name_pattern(name).sub(" ", query)
    return query


def weighted(
    keyword: list[tuple[int, float]], dense: DenseScores, names: set[str], k: int
) -> list[tuple[str, float]]:
    """The ``k`` best (id, fused score), computed in numpy over every memory.

    ``keyword`` holds (row seq, BM25); a seq outside the owner's index, or one the
    dense side does not allow (expired, another session...), contributes nothing.
    """
    fused = DENSE_WEIGHT * dense.sims  # a new array; -inf rows stay out
    for name in names:
        mask = dense.speaker_masks.get(name)
        if mask is not None:
            fused = fused + SPEAKER_BONUS * mask
    if keyword:
        positions = np.fromiter(
            (dense.seq_position.get(seq, -1) for seq, _ in keyword), dtype=np.int64
        )
        # A row added to the index after its product (another thread) has no score yet.
        known = (positions >= 0) & (positions < len(fused))
        positions = positions[known]
        allowed = np.isfinite(fused[positions])
        positions = positions[allowed]
        squashed = np.log1p(np.fromiter((b for _, b in keyword), dtype=np.float64))
        squashed = squashed[known][allowed]
        # Normalised by the best of this owner's allowed matches only.
        if squashed.size and squashed.max() > 0:
            np.add.at(fused, positions, (squashed / squashed.max()).astype(np.float32))
    return DenseScores(dense.ids, fused, dense.position, {}).top(k)


def keyword_by_id(keyword: list[tuple[int, float]], dense: DenseScores) -> dict[str, float]:
    """(row seq, BM25) as memory id -> BM25, for the rows the dense side scored.

    ``seq_position`` is the index's live mapping, shared, not copied: another thread's
    refresh may have added a row after ``dense`` was cut, whose position is past
    ``ids`` (4 writers and 2 readers on one key once made this an IndexError)."""
    n = len(dense.ids)
    found: dict[str, float] = {}
    for seq, bm25 in keyword:
        position = dense.seq_position.get(seq)
        if position is not None and position < n:
            found[dense.ids[position]] = bm25
    return found


def partial_weighted(
    keyword: dict[str, float], dense: DenseScores, names: set[str], k: int
) -> list[tuple[str, float]]:
    """``weighted`` when only the nearest few have a cosine (Qdrant's top k): keyword
    matches are candidates of their own, and a memory without a cosine counts 0 for it."""
    scores: dict[str, float] = {}
    if keyword:
        squashed = {i: float(np.log1p(b)) for i, b in keyword.items()}
        best = max(squashed.values())
        scores = {i: (v / best if best > 0 else 0.0) for i, v in squashed.items()}
    for position, memory_id in enumerate(dense.ids):
        sim = float(dense.sims[position])
        if not np.isfinite(sim):
            continue
        bonus = sum(
            SPEAKER_BONUS
            for n in names
            if n in dense.speaker_masks and dense.speaker_masks[n][position]
        )
        scores[memory_id] = scores.get(memory_id, 0.0) + DENSE_WEIGHT * sim + bonus
    return sorted(scores.items(), key=lambda item: item[1], reverse=True)[:k]


def rrf(rankings: Sequence[Sequence[str]], k: int) -> dict[str, float]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, memory_id in enumerate(ranking, start=1):
            scores[memory_id] = scores.get(memory_id, 0.0) + 1.0 / (k + rank)
    return scores
