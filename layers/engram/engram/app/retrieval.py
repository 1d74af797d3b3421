"""Retrieval: rank a key's live memories for a query and fit them to a token budget.

Strategies (SPEC section 4):
- ``exact``: newest first.
- ``semantic``: nearest vectors when a vector tier is ready, else keyword (BM25);
  nothing matched or the index failing -> newest first, flagged as a fallback.
- ``hybrid``: keyword and vector evidence fused (``fusion`` setting: ``weighted``,
  the default, or ``rrf``), then recent memories to fill what is left.
Every degradation is silent for the caller and explained in ``resolution``.

Two tiers reach the prompt: the *profile* (``models/profile.py``: who the user is,
health, home, family, pets, standing instructions, pinned memories) with every request,
within ``profileTokens``; then the *recall*, the ranking above held to the relevance
floor, in what is left of the budget, without what the profile holds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from engram.app.fusion import (
    keyword_by_id,
    named_speakers,
    partial_weighted,
    rrf,
    strip_names,
    weighted,
)
from engram.app.health import FailureLog
from engram.app.relevance import apply_floor
from engram.app.settings import SettingsStore
from engram.app.tiers import Candidate, Outcome, fit_profile, fit_recall, public, said_already, why
from engram.app.vectors import VectorService
from engram.domain.errors import EngramError, StorageError
from engram.domain.models import (
    DAY_MS,
    MAX_TOKENS_LIMIT,
    MemorySettings,
    OwnerFilter,
    Resolution,
    RetrievalRequest,
    RetrievalResult,
    Strategy,
    owner_filter,
)
from engram.domain.models.profile import profile_rank, profile_reason
from engram.domain.models.retrieval import Tier
from engram.ports import DenseScores, Reranker, RetrievalStats, SearchIndex

__all__ = ["RERANK_TOP", "Retriever"]

log = logging.getLogger(__name__)
# Weighted fusion scores this many keyword matches (ids and BM25 only), so a memory
# ranked 21st by keywords but close in meaning still gets its keyword evidence.
FUSION_KEYWORD_POOL = 200
# Fused candidates loaded beyond the limit, for the budget walk to skip oversized ones.
FUSION_SPARE = 10
# How many of the best candidates a reranker reorders (the rest keep their place).
RERANK_TOP = 30
T = TypeVar("T")
# Profile memories read per retrieval, at most: more than a profile budget holds.
PROFILE_LIMIT = 32


class Retriever:
    def __init__(
        self,
        search: SearchIndex,
        stats: RetrievalStats,
        settings: SettingsStore,
        vectors: VectorService,
        now_ms: Callable[[], int],
        *,
        rrf_k: int = 60,
        vec_top_k: int = 20,
        reranker: Callable[[], Reranker | None] = lambda: None,
        failures: FailureLog | None = None,
    ) -> None:
        self.failures = failures or FailureLog(now_ms)
        self.search = search
        self.stats = stats
        self.settings = settings
        self.vectors = vectors
        self.now_ms = now_ms
        self.rrf_k = rrf_k
        self.vec_top_k = vec_top_k
        self.reranker = reranker

    def retrieve(self, api_key_id: str, request: RetrievalRequest) -> RetrievalResult:
        """What the chat path injects: counted in the hit rate, and free to fill in
        missing vectors on the way."""
        return self._retrieve(api_key_id, request, read_only=False)

    def preview(self, api_key_id: str, request: RetrievalRequest) -> RetrievalResult:
        """The same ranking, read-only: nothing counted, nothing written. Memories still
        waiting for their vector are ranked on keywords alone."""
        return self._retrieve(api_key_id, request, read_only=True)

    def _retrieve(
        self, api_key_id: str, request: RetrievalRequest, *, read_only: bool
    ) -> RetrievalResult:
        # The owner's version is read once for the vector index, the keyword postings
        # and the lazy-embedding check: one round trip to a server instead of three.
        with self.search.read_scope():
            return self._retrieve_in_scope(api_key_id, request, read_only=read_only)

    def _retrieve_in_scope(
        self, api_key_id: str, request: RetrievalRequest, *, read_only: bool
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
        outcome = self._rank(strategy, request, who, now, cutoff, settings, read_only)
        if strategy is not Strategy.EXACT and request.query.strip():
            self._rerank(request.query, outcome)
            apply_floor(request, settings, outcome, lambda names: self.search.mentions(who, names))
        wanted = (
            settings.profile_tokens if request.profile_tokens is None else request.profile_tokens
        )
        found = self._profile(who, now, cutoff, outcome) if wanted > 0 else []
        profile, profile_used = fit_profile(found, min(wanted, budget))
        shown = {c.memory.id for c, _ in profile}
        recall = [
            c
            for c in outcome.ranked
            if c.memory.id not in shown and not said_already(c.memory, request.said)
        ]
        recalled, recall_used = fit_recall(recall, budget - profile_used, request.limit)
        results = [public(c, tokens) for c, tokens in profile] + [
            public(c, tokens, why(c, outcome.floor)) for c, tokens in recalled
        ]
        if not read_only:
            self._record(api_key_id, bool(results), now)
        resolution = Resolution(
            strategy=strategy,
            keyword_tier="unavailable" if outcome.keyword_tier != "fts5" else "fts5",
            embedding_source=outcome.embedding_source,
            vector_store=outcome.vector_store,
            fallback=bool(outcome.reasons),
            reason="; ".join(outcome.reasons) or None,
            degraded=sorted(set(outcome.failed)),
        )
        if outcome.failed:
            self.failures.count_degraded()
            # One line per degraded retrieval, whatever the function: the template turns
            # it into the metric DegradedRetrievals and alarms on it (no content in it).
            log.warning("retrieval degraded", extra={"parts": resolution.degraded})
        return RetrievalResult(
            results=results,
            tokens_used=profile_used + recall_used,
            profile_tokens=profile_used,
            recall_tokens=recall_used,
            resolution=resolution,
        )

    def _profile(
        self, who: OwnerFilter, now: int, cutoff: int, outcome: Outcome
    ) -> list[Candidate]:
        """The profile (identity, health, home, family, pets, standing instructions,
        pinned memories) goes with every request, whatever the question: pinned first,
        then by category, the newest first within each. A fact said twice goes once."""
        try:
            if outcome.context is not None:
                found = outcome.context.profile
            else:
                found = self.search.profile(who, now, cutoff, PROFILE_LIMIT)
        except StorageError as exc:
            log.warning("profile not read: %s", exc.message)
            outcome.reasons.append("profile unavailable")
            outcome.failed.append("profile")
            return []
        ordered = sorted(found, key=lambda m: profile_rank(m.metadata))
        seen: set[str] = set()
        profile = []
        for memory in ordered:
            said = " ".join(memory.content.lower().split())
            if said in seen:
                continue
            seen.add(said)
            why = profile_reason(memory.metadata) or "profile"
            profile.append(Candidate(memory, "profile", 1.0, reason=f"profile: {why}"))
        return profile

    def _record(self, api_key_id: str, hit: bool, now: int) -> None:
        """Count the retrieval for the hit rate; a counter that cannot be written (a locked
        or read-only database) must not cost the caller its results."""
        try:
            self.stats.record(api_key_id, hit, now)
        except StorageError as exc:
            log.info("retrieval not counted: %s", exc.message)
            self.failures.failed("retrieval stats", exc.message)

    # -- ranking ------------------------------------------------------------------

    def _rank(
        self,
        strategy: Strategy,
        request: RetrievalRequest,
        who: OwnerFilter,
        now: int,
        cutoff: int,
        settings: MemorySettings,
        read_only: bool,
    ) -> Outcome:
        outcome = Outcome()
        limit = request.limit
        if strategy is Strategy.EXACT or not request.query.strip():
            # Spare rows: a fact beside its own turn gives its place to the next one.
            outcome.ranked = self._recent(who, now, cutoff, limit + FUSION_SPARE)
            return outcome
        answer = self.vectors.dense(request.query, who, now, cutoff, read_only=read_only)
        outcome.embedding_source = answer.embedding_source
        outcome.vector_store = answer.vector_store
        outcome.reasons += answer.reasons
        outcome.failed += answer.failed
        dense = answer.scores
        names = named_speakers(request.query, dense.speaker_masks) if dense else set()
        outcome.speakers = names
        pool = max(limit, self.vec_top_k)
        stripped = strip_names(request.query, names)
        weighted_fusion = (
            strategy is Strategy.HYBRID
            and dense is not None
            and dense.complete
            and settings.fusion == "weighted"
        )
        # Weighted fusion reads keyword scores in its own, narrower query.
        keyword = (
            [] if weighted_fusion else self._keyword(stripped, who, now, cutoff, pool, outcome)
        )
        if strategy is Strategy.SEMANTIC:
            ranked = self._nearest(dense, who, now, cutoff, pool) if dense else keyword
        elif dense is None:
            ranked = keyword
        elif settings.fusion == "rrf":
            nearest = [memory_id for memory_id, _ in dense.top(self.vec_top_k)]
            scores = rrf([[c.memory.id for c in keyword], nearest], self.rrf_k)
            best = sorted(scores.items(), key=lambda item: item[1], reverse=True)
            fts = {c.memory.id: c.fts_score or 0.0 for c in keyword}
            ranked = self._fused(
                best[: limit + FUSION_SPARE], keyword, dense, who, now, cutoff, fts, outcome, limit
            )
        elif not dense.complete:
            fts = {c.memory.id: c.fts_score or 0.0 for c in keyword}
            best = partial_weighted(fts, dense, names, limit + FUSION_SPARE)
            ranked = self._fused(best, keyword, dense, who, now, cutoff, fts, outcome, limit)
        else:
            hits = self._keyword_scores(stripped, who, outcome)
            best = weighted(hits, dense, names, limit + FUSION_SPARE)
            fts = keyword_by_id(hits, dense)
            ranked = self._fused(best, keyword, dense, who, now, cutoff, fts, outcome, limit)
        if not ranked:
            if strategy is Strategy.SEMANTIC:
                outcome.reasons.append("no match: chronological order")
            ranked = self._recent(who, now, cutoff, limit, outcome)
        elif strategy is Strategy.HYBRID and len(ranked) < limit:
            seen = {c.memory.id for c in ranked}
            recent = self._recent(who, now, cutoff, limit, outcome)
            ranked += [c for c in recent if c.memory.id not in seen]
        outcome.ranked = ranked
        return outcome

    def _rerank(self, query: str, outcome: Outcome) -> None:
        """Reorder the top candidates with the remote reranker, if on; fail-open."""
        reranker = self.reranker()
        if reranker is None or len(outcome.ranked) < 2:
            return
        head, tail = outcome.ranked[:RERANK_TOP], outcome.ranked[RERANK_TOP:]
        try:
            order = reranker.order(query, [c.memory.content for c in head])
        except EngramError as exc:
            log.warning("rerank failed; keeping the fused order: %s", exc.message)
            self.failures.failed("reranker", exc.message)
            outcome.reasons.append(f"{exc.message}: fused order kept")
            outcome.failed.append("reranker")
            return
        self.failures.recovered("reranker")
        outcome.ranked = [head[i] for i in order] + tail

    def _recent(
        self, who: OwnerFilter, now: int, cutoff: int, limit: int, outcome: Outcome | None = None
    ) -> list[Candidate]:
        if outcome is not None and outcome.context and limit <= outcome.context_limit:
            found = outcome.context.recent[:limit]
        else:
            found = self.search.recent(who, now, cutoff, limit)
        return [Candidate(m, "recent") for m in found]

    def _keyword_hits(
        self, outcome: Outcome, search: Callable[[], list[tuple[T, float]]]
    ) -> list[tuple[T, float]]:
        """Run one keyword query; [] and a flagged fallback when the index is missing or
        fails, so retrieval goes on without it."""
        try:
            found = search()
        except StorageError as exc:
            log.warning("keyword index failed; retrieval goes on without it: %s", exc.message)
            self.failures.failed("keyword index", exc.message)
            outcome.keyword_tier = "unavailable"
            outcome.reasons.append("keyword index unavailable")
            outcome.failed.append("keyword index")
            return []
        self.failures.recovered("keyword index")
        return found

    def _keyword(
        self, query: str, who: OwnerFilter, now: int, cutoff: int, pool: int, outcome: Outcome
    ) -> list[Candidate]:
        hits = self._keyword_hits(
            outcome, lambda: self.search.keyword_search(query, who, now, cutoff, pool)
        )
        if not hits:
            return []
        best = max(-rank for _, rank in hits) or 1.0
        return [Candidate(m, "keyword", score=(-rank) / best, fts_score=-rank) for m, rank in hits]

    def _keyword_scores(
        self, query: str, who: OwnerFilter, outcome: Outcome
    ) -> list[tuple[int, float]]:
        hits = self._keyword_hits(
            outcome, lambda: self.search.keyword_scores(query, who, FUSION_KEYWORD_POOL)
        )
        return [(seq, -rank) for seq, rank in hits]

    def _nearest(
        self, dense: DenseScores, who: OwnerFilter, now: int, cutoff: int, k: int
    ) -> list[Candidate]:
        top = dense.top(k)
        found = {m.id: m for m in self.search.get_many([i for i, _ in top], who, now, cutoff)}
        return [Candidate(found[i], "vector", sim, None, sim) for i, sim in top if i in found]

    def _fused(
        self,
        best: list[tuple[str, float]],
        known: list[Candidate],
        dense: DenseScores,
        who: OwnerFilter,
        now: int,
        cutoff: int,
        fts: dict[str, float],
        outcome: Outcome,
        limit: int,
    ) -> list[Candidate]:
        """Candidates for the fused ranking ``best`` (id, score), rows loaded in one query,
        with the recent memories and the profile the ranking may still need
        (one round trip to a remote database instead of three)."""
        memories = {c.memory.id: c.memory for c in known}
        missing, seqs = [], []
        for memory_id, _ in best:
            if memory_id in memories:
                continue
            position = dense.position.get(memory_id) if dense.seqs else None
            if position is None or position >= len(dense.seqs):
                missing.append(memory_id)
            else:
                seqs.append(dense.seqs[position])
        rows = self.search.get_many_with_context(
            missing, who, now, cutoff, limit, PROFILE_LIMIT, seqs=seqs
        )
        outcome.context, outcome.context_limit = rows, limit
        memories.update({m.id: m for m in rows.memories})
        ranked = []
        for memory_id, score in best:
            if memory_id not in memories:
                continue
            position = dense.position.get(memory_id)
            scored = position is not None and position < len(dense.sims)
            sim = float(dense.sims[position]) if scored else None
            if sim is not None and not np.isfinite(sim):
                sim = None
            in_fts = memory_id in fts
            tier: Tier = (
                "hybrid" if in_fts and sim is not None else ("keyword" if in_fts else "vector")
            )
            ranked.append(Candidate(memories[memory_id], tier, score, fts.get(memory_id), sim))
        return ranked
