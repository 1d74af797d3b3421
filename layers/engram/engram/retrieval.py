"""Retrieval: rank a key's live memories for a query and fit them to a token budget.

Strategies (SPEC section 4):
- ``exact``: newest first.
- ``semantic``: vectors when a tier is ready, else keyword (FTS5/BM25); nothing
  matched or the index failing -> chronological, flagged as a fallback.
- ``hybrid``: Reciprocal Rank Fusion of keyword and vector ranks, then recent
  memories to fill the budget.
Every degradation is silent for the caller and explained in ``resolution``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import EngramError, InvalidInputError, StorageError
from .models import (
    GLOBAL_OWNER,
    Memory,
    Resolution,
    RetrievalRequest,
    RetrievalResult,
    RetrievedMemory,
    Scope,
    Strategy,
)
from .models.retrieval import Tier
from .ports import VectorTier
from .settings import MAX_TOKENS_LIMIT, SettingsStore
from .storage.fts import build_match, query_terms
from .storage.memories import MemoryRepository, OwnerFilter
from .tokens import estimate_tokens

__all__ = ["Retriever", "owner_filter"]

log = logging.getLogger(__name__)
DAY_MS = 86_400_000


@dataclass
class _Candidate:
    memory: Memory
    tier: Tier
    score: float = 0.0
    fts_score: float | None = None
    vec_score: float | None = None


@dataclass
class _Outcome:
    ranked: list[_Candidate] = field(default_factory=list)
    keyword_tier: str = "fts5"
    embedding_source: str | None = None
    vector_store: str | None = None
    reasons: list[str] = field(default_factory=list)


def owner_filter(api_key_id: str, scope: Scope, session_id: str | None) -> OwnerFilter:
    if scope is Scope.SESSION:
        if session_id is None:
            raise InvalidInputError("sessionId is required for scope 'session'", field="sessionId")
        return OwnerFilter((api_key_id,), session_id)
    if scope is Scope.GLOBAL and api_key_id != GLOBAL_OWNER:
        return OwnerFilter((api_key_id, GLOBAL_OWNER))
    return OwnerFilter((api_key_id,))


class Retriever:
    def __init__(
        self,
        repo: MemoryRepository,
        settings: SettingsStore,
        now_ms: Callable[[], int],
        *,
        rrf_k: int = 60,
        vec_top_k: int = 20,
        vector_tier: Callable[[], VectorTier | None] = lambda: None,
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.now_ms = now_ms
        self.rrf_k = rrf_k
        self.vec_top_k = vec_top_k
        self.vector_tier = vector_tier

    def retrieve(
        self, api_key_id: str, request: RetrievalRequest, *, record: bool = True
    ) -> RetrievalResult:
        settings = self.settings.get()
        strategy = request.strategy or settings.strategy
        budget = settings.max_tokens if request.max_tokens is None else request.max_tokens
        who = owner_filter(api_key_id, request.scope, request.session_id)
        if budget <= 0:
            resolution = Resolution(
                strategy=strategy,
                keyword_tier="fts5",
                embedding_source=None,
                vector_store=None,
                fallback=False,
                reason="token budget is 0: nothing retrieved",
            )
            return RetrievalResult(results=[], tokens_used=0, resolution=resolution)
        budget = min(budget, MAX_TOKENS_LIMIT)
        now = self.now_ms()
        cutoff = now - settings.retention_days * DAY_MS
        outcome = self._rank(strategy, request, who, now, cutoff)
        results, used = _fit_budget(outcome.ranked, budget, request.limit)
        if record:
            self.repo.record_retrieval(api_key_id, bool(results), now)
        resolution = Resolution(
            strategy=strategy,
            keyword_tier="unavailable" if outcome.keyword_tier != "fts5" else "fts5",
            embedding_source=outcome.embedding_source,
            vector_store=outcome.vector_store,
            fallback=bool(outcome.reasons),
            reason="; ".join(outcome.reasons) or None,
        )
        return RetrievalResult(results=results, tokens_used=used, resolution=resolution)

    # -- ranking ------------------------------------------------------------------

    def _rank(
        self, strategy: Strategy, request: RetrievalRequest, who: OwnerFilter, now: int, cutoff: int
    ) -> _Outcome:
        outcome = _Outcome()
        pool = max(request.limit, self.vec_top_k)
        if strategy is Strategy.EXACT or not request.query.strip():
            outcome.ranked = self._recent(who, now, cutoff, request.limit)
            return outcome
        keyword = self._keyword(request.query, who, now, cutoff, pool, outcome)
        vector = self._vector(request.query, who, now, cutoff, outcome)
        if strategy is Strategy.SEMANTIC:
            ranked = vector if vector else keyword
        else:
            ranked = self._fuse(keyword, vector)
        if not ranked:
            if strategy is Strategy.SEMANTIC:
                outcome.reasons.append("no match: chronological order")
            ranked = self._recent(who, now, cutoff, request.limit)
        elif strategy is Strategy.HYBRID:
            seen = {c.memory.id for c in ranked}
            ranked += [
                c for c in self._recent(who, now, cutoff, request.limit) if c.memory.id not in seen
            ]
        outcome.ranked = ranked
        return outcome

    def _recent(self, who: OwnerFilter, now: int, cutoff: int, limit: int) -> list[_Candidate]:
        return [_Candidate(m, "recent") for m in self.repo.recent(who, now, cutoff, limit)]

    def _keyword(
        self, query: str, who: OwnerFilter, now: int, cutoff: int, pool: int, outcome: _Outcome
    ) -> list[_Candidate]:
        terms = query_terms(query)
        if not terms:
            return []
        try:
            match = build_match(self.repo.selective_terms(terms))
            assert match is not None  # selective_terms never empties a non-empty list
            hits = self.repo.keyword_search(match, who, now, cutoff, pool)
        except StorageError:
            log.warning("keyword index failed; falling back to chronological order", exc_info=True)
            outcome.keyword_tier = "unavailable"
            outcome.reasons.append("keyword index unavailable")
            return []
        if not hits:
            return []
        best = max(-rank for _, rank in hits) or 1.0
        return [_Candidate(m, "keyword", score=(-rank) / best, fts_score=-rank) for m, rank in hits]

    def _vector(
        self, query: str, who: OwnerFilter, now: int, cutoff: int, outcome: _Outcome
    ) -> list[_Candidate]:
        tier = self.vector_tier()
        if tier is None:
            outcome.reasons.append("no vector tier: keyword only")
            return []
        outcome.embedding_source = tier.embedding_source
        outcome.vector_store = tier.store
        try:
            hits = tier.search(query, who, now, cutoff, self.vec_top_k)
            ids = [h.memory_id for h in hits]
            memories = {m.id: m for m in self.repo.get_many(ids, who, now, cutoff)}
        except EngramError:
            log.warning("vector tier %s failed; keyword only", tier.store, exc_info=True)
            outcome.reasons.append(f"vector tier {tier.store} failed: keyword only")
            outcome.vector_store = None
            return []
        return [
            _Candidate(memories[h.memory_id], "vector", score=h.similarity, vec_score=h.similarity)
            for h in hits
            if h.memory_id in memories
        ]

    def _fuse(self, keyword: list[_Candidate], vector: list[_Candidate]) -> list[_Candidate]:
        """Reciprocal Rank Fusion: score(d) = sum over lists of 1 / (k + rank)."""
        if not vector:
            return keyword
        if not keyword:
            return vector
        fused: dict[str, _Candidate] = {}
        for ranked in (keyword, vector):
            for rank, candidate in enumerate(ranked, start=1):
                into = fused.setdefault(candidate.memory.id, _Candidate(candidate.memory, "hybrid"))
                into.score += 1.0 / (self.rrf_k + rank)
                if into.fts_score is None:
                    into.fts_score = candidate.fts_score
                if into.vec_score is None:
                    into.vec_score = candidate.vec_score
        for candidate in fused.values():
            if candidate.vec_score is None:
                candidate.tier = "keyword"
            elif candidate.fts_score is None:
                candidate.tier = "vector"
        return sorted(fused.values(), key=lambda c: c.score, reverse=True)


def _fit_budget(
    ranked: list[_Candidate], budget: int, limit: int
) -> tuple[list[RetrievedMemory], int]:
    """Walk the ranking and keep what fits; at least one memory when anything matched."""
    chosen: list[RetrievedMemory] = []
    used = 0
    for candidate in ranked:
        if len(chosen) >= limit:
            break
        tokens = estimate_tokens(candidate.memory.content)
        if used + tokens > budget:
            continue
        chosen.append(_public(candidate, tokens))
        used += tokens
    if not chosen and ranked:
        first = ranked[0]
        tokens = estimate_tokens(first.memory.content)
        return [_public(first, tokens)], tokens
    return chosen, used


def _public(candidate: _Candidate, tokens: int) -> RetrievedMemory:
    return RetrievedMemory(
        **candidate.memory.model_dump(by_alias=False),
        score=candidate.score,
        tier=candidate.tier,
        tokens=tokens,
        fts_score=candidate.fts_score,
        vec_score=candidate.vec_score,
    )
