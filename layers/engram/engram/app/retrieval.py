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
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from engram.app.conversation import TURN_KIND
from engram.app.fusion import (
    keyword_by_id,
    named_speakers,
    partial_weighted,
    rrf,
    strip_names,
    weighted,
)
from engram.app.health import FailureLog
from engram.app.settings import SettingsStore
from engram.app.vectors import VectorService
from engram.domain.errors import EngramError, StorageError
from engram.domain.models import (
    DAY_MS,
    MAX_TOKENS_LIMIT,
    Memory,
    MemorySettings,
    OwnerFilter,
    Resolution,
    RetrievalRequest,
    RetrievalResult,
    RetrievedMemory,
    Strategy,
    owner_filter,
)
from engram.domain.models.profile import profile_rank, profile_reason
from engram.domain.models.retrieval import Tier
from engram.domain.models.trusted import trusted
from engram.domain.terms import coverage, proper_names, query_terms, subject_words
from engram.domain.tokens import estimate_tokens
from engram.ports import DenseScores, RankingRows, Reranker, RetrievalStats, SearchIndex

__all__ = ["FLOOR_BY_SOURCE", "KEYWORD_COVERAGE", "RERANK_TOP", "Retriever"]

log = logging.getLogger(__name__)
# Weighted fusion scores this many keyword matches (ids and BM25 only), so a memory
# ranked 21st by keywords but close in meaning still gets its keyword evidence.
FUSION_KEYWORD_POOL = 200
# Fused candidates loaded beyond the limit, for the budget walk to skip oversized ones.
FUSION_SPARE = 10
# How many of the best candidates a reranker reorders (the rest keep their place).
RERANK_TOP = 30
T = TypeVar("T")
# The relevance floor (bench/relevance.py): a memory is injected when its cosine to the
# query reaches the floor of the embedder that made it, or when it matches keywords
# covering this share of the query's content words. Cosines differ by model, so each
# local model has its own calibrated floor; a remote model's is unknown, so vectors
# alone never pass it and only keyword evidence (or an explicit setting) counts.
FLOOR_BY_SOURCE = {"static": 0.3, "transformers": 0.3}
UNKNOWN_MODEL_FLOOR = 1.0
KEYWORD_COVERAGE = 0.5
# Profile memories read per retrieval, at most: more than a profile budget holds.
PROFILE_LIMIT = 32


@dataclass
class _Candidate:
    memory: Memory
    tier: Tier
    score: float = 0.0
    fts_score: float | None = None
    vec_score: float | None = None
    coverage: float | None = None
    reason: str | None = None


@dataclass
class _Outcome:
    ranked: list[_Candidate] = field(default_factory=list)
    keyword_tier: str = "fts5"
    embedding_source: str | None = None
    vector_store: str | None = None
    reasons: list[str] = field(default_factory=list)
    # Recent memories and the profile, read with the fused ranking's rows.
    context: RankingRows | None = None
    context_limit: int = 0
    # Speakers (``metadata.speaker``) the query names: a name known as a speaker is
    # known to memory even where no text mentions it (what "Melanie" said herself).
    speakers: set[str] = field(default_factory=set)
    # The relevance floor the recall passed (None: not applied).
    floor: float | None = None
    # Parts that failed answering this request: its results may miss what they hold.
    failed: list[str] = field(default_factory=list)


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
            self._floor(request, settings, outcome, who)
        wanted = (
            settings.profile_tokens if request.profile_tokens is None else request.profile_tokens
        )
        found = self._profile(who, now, cutoff, outcome) if wanted > 0 else []
        profile, profile_used = _fit_profile(found, min(wanted, budget))
        shown = {c.memory.id for c, _ in profile}
        recall = [
            c
            for c in outcome.ranked
            if c.memory.id not in shown and not _said_already(c.memory, request.said)
        ]
        recalled, recall_used = _fit_budget(recall, budget - profile_used, request.limit)
        results = [_public(c, tokens) for c, tokens in profile] + [
            _public(c, tokens, _why(c, outcome.floor)) for c, tokens in recalled
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

    def _floor(
        self,
        request: RetrievalRequest,
        settings: MemorySettings,
        outcome: _Outcome,
        who: OwnerFilter,
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
                known = self.search.mentions(who, names)
            except StorageError:
                known = set(names)  # cannot tell: leave the ranking as it is
            if known:
                return
            outcome.reasons.append(
                f"nothing relevant: no memory mentions {', '.join(sorted(names))}"
            )
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

    def _profile(
        self, who: OwnerFilter, now: int, cutoff: int, outcome: _Outcome
    ) -> list[_Candidate]:
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
            profile.append(_Candidate(memory, "profile", 1.0, reason=f"profile: {why}"))
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
    ) -> _Outcome:
        outcome = _Outcome()
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

    def _rerank(self, query: str, outcome: _Outcome) -> None:
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
        self, who: OwnerFilter, now: int, cutoff: int, limit: int, outcome: _Outcome | None = None
    ) -> list[_Candidate]:
        if outcome is not None and outcome.context and limit <= outcome.context_limit:
            found = outcome.context.recent[:limit]
        else:
            found = self.search.recent(who, now, cutoff, limit)
        return [_Candidate(m, "recent") for m in found]

    def _keyword_hits(
        self, outcome: _Outcome, search: Callable[[], list[tuple[T, float]]]
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
        self, query: str, who: OwnerFilter, now: int, cutoff: int, pool: int, outcome: _Outcome
    ) -> list[_Candidate]:
        hits = self._keyword_hits(
            outcome, lambda: self.search.keyword_search(query, who, now, cutoff, pool)
        )
        if not hits:
            return []
        best = max(-rank for _, rank in hits) or 1.0
        return [_Candidate(m, "keyword", score=(-rank) / best, fts_score=-rank) for m, rank in hits]

    def _keyword_scores(
        self, query: str, who: OwnerFilter, outcome: _Outcome
    ) -> list[tuple[int, float]]:
        hits = self._keyword_hits(
            outcome, lambda: self.search.keyword_scores(query, who, FUSION_KEYWORD_POOL)
        )
        return [(seq, -rank) for seq, rank in hits]

    def _nearest(
        self, dense: DenseScores, who: OwnerFilter, now: int, cutoff: int, k: int
    ) -> list[_Candidate]:
        top = dense.top(k)
        found = {m.id: m for m in self.search.get_many([i for i, _ in top], who, now, cutoff)}
        return [_Candidate(found[i], "vector", sim, None, sim) for i, sim in top if i in found]

    def _fused(
        self,
        best: list[tuple[str, float]],
        known: list[_Candidate],
        dense: DenseScores,
        who: OwnerFilter,
        now: int,
        cutoff: int,
        fts: dict[str, float],
        outcome: _Outcome,
        limit: int,
    ) -> list[_Candidate]:
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
            ranked.append(_Candidate(memories[memory_id], tier, score, fts.get(memory_id), sim))
        return ranked


def _searchable(memory: Memory) -> str:
    """A memory's words as keyword search sees them, with the kind of thing it is about
    ("use Django" is about a backend framework)."""
    return f"{memory.key} {memory.content} {subject_words(memory.metadata.get('subject'))}"


def _fit_profile(
    profile: list[_Candidate], budget: int
) -> tuple[list[tuple[_Candidate, int]], int]:
    """The profile memories that fit its budget, in the profile's order."""
    chosen = _walk(profile, budget, len(profile))
    return chosen, sum(tokens for _, tokens in chosen)


def _fit_budget(
    ranked: list[_Candidate], budget: int, limit: int
) -> tuple[list[tuple[_Candidate, int]], int]:
    """Walk the recall ranking and keep what fits; at least one memory when anything
    matched and the profile left room.

    A fact beside the stored turn it was learnt from (``metadata.turn``) says the same
    thing twice: the turn stays (the words as said, by whom, when) and the fact gives its
    place to the next memory. Only a turn that is kept counts, so the walk is done again
    without such facts: leaving memories out only frees room, and the turns stay kept.
    """
    if budget <= 0:
        return [], 0
    while True:
        chosen = _walk(ranked, budget, limit)
        shown = {
            (c.memory.api_key_id, c.memory.key)
            for c, _ in chosen
            if c.memory.metadata.get("kind") == TURN_KIND
        }
        echoes = {id(c) for c, _ in chosen if _beside_its_turn(c.memory, shown)}
        if not echoes:
            break
        ranked = [c for c in ranked if id(c) not in echoes]
    if not chosen and ranked:
        first = ranked[0]
        return [(first, estimate_tokens(first.memory.content))], estimate_tokens(
            first.memory.content
        )
    return chosen, sum(tokens for _, tokens in chosen)


def _walk(ranked: list[_Candidate], budget: int, limit: int) -> list[tuple[_Candidate, int]]:
    chosen: list[tuple[_Candidate, int]] = []
    used = 0
    for candidate in ranked:
        if len(chosen) >= limit:
            break
        tokens = estimate_tokens(candidate.memory.content)
        if used + tokens > budget:
            continue
        chosen.append((candidate, tokens))
        used += tokens
    return chosen


def _beside_its_turn(memory: Memory, shown: set[tuple[str, str]]) -> bool:
    # metadata is the caller's too: "turn" may be any JSON value, a list or an object.
    said_in = memory.metadata.get("turn")
    if memory.metadata.get("kind") == TURN_KIND or not isinstance(said_in, str):
        return False
    return (memory.api_key_id, said_in) in shown


def _said_already(memory: Memory, said: frozenset[str]) -> bool:
    """A stored turn that the request's own messages carry (a client sends the history
    with each message): recalled, it would say the same words twice."""
    if not said or memory.metadata.get("kind") != TURN_KIND:
        return False
    return " ".join(memory.content.split()) in said


def _why(candidate: _Candidate, floor: float | None) -> str:
    """Why a recalled memory was injected, from the evidence that ranked it."""
    if candidate.tier == "recent":
        return "recall: among the newest (the ranking found too few)"
    evidence = []
    if candidate.vec_score is not None:
        at = f" (floor {floor:.2f})" if floor is not None else ""
        evidence.append(f"cosine {candidate.vec_score:.2f}{at}")
    if candidate.coverage:
        evidence.append(f"keywords cover {candidate.coverage:.0%} of the message")
    if not evidence:
        return f"recall: {candidate.tier} match"
    return f"recall: {', '.join(evidence)}"


def _public(candidate: _Candidate, tokens: int, reason: str | None = None) -> RetrievedMemory:
    # The memory was validated when it was read; constructing skips re-validating it.
    return trusted(
        RetrievedMemory,
        {
            **candidate.memory.__dict__,
            "score": candidate.score,
            "tier": candidate.tier,
            "tokens": tokens,
            "fts_score": candidate.fts_score,
            "vec_score": candidate.vec_score,
            "keyword_coverage": candidate.coverage,
            "reason": reason or candidate.reason,
        },
    )
