"""The two tiers fitted into a request's token budget: the profile within its share,
then the recall in what is left, each memory with the reason it is there. The walk itself
(``domain.tokens.fit``) is the one a remote backend's answer is fitted with too."""

from __future__ import annotations

from dataclasses import dataclass, field

from engram.app.conversation import TURN_KIND
from engram.domain.models import Memory, RetrievedMemory
from engram.domain.models.retrieval import Tier
from engram.domain.models.trusted import trusted
from engram.domain.tokens import estimate_tokens, fit
from engram.ports import RankingRows

__all__ = ["Candidate", "Outcome", "fit_profile", "fit_recall", "public", "said_already", "why"]


@dataclass
class Candidate:
    memory: Memory
    tier: Tier
    score: float = 0.0
    fts_score: float | None = None
    vec_score: float | None = None
    coverage: float | None = None
    reason: str | None = None


@dataclass
class Outcome:
    """What the ranking found for one request, and what it says about how."""

    ranked: list[Candidate] = field(default_factory=list)
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


def fit_profile(profile: list[Candidate], budget: int) -> tuple[list[tuple[Candidate, int]], int]:
    """The profile memories that fit its budget, in the profile's order."""
    chosen = _walk(profile, budget, len(profile))
    return chosen, sum(tokens for _, tokens in chosen)


def fit_recall(
    ranked: list[Candidate], budget: int, limit: int
) -> tuple[list[tuple[Candidate, int]], int]:
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
        chosen = _walk(ranked, budget, limit, at_least_one=True)
        shown = {
            (c.memory.api_key_id, c.memory.key)
            for c, _ in chosen
            if c.memory.metadata.get("kind") == TURN_KIND
        }
        echoes = {id(c) for c, _ in chosen if _beside_its_turn(c.memory, shown)}
        if not echoes:
            break
        ranked = [c for c in ranked if id(c) not in echoes]
    return chosen, sum(tokens for _, tokens in chosen)


def _walk(
    ranked: list[Candidate], budget: int, limit: int, *, at_least_one: bool = False
) -> list[tuple[Candidate, int]]:
    cost = lambda c: estimate_tokens(c.memory.content)  # noqa: E731
    return fit(ranked, cost, budget, limit, at_least_one=at_least_one)


def _beside_its_turn(memory: Memory, shown: set[tuple[str, str]]) -> bool:
    # metadata is the caller's too: "turn" may be any JSON value, a list or an object.
    said_in = memory.metadata.get("turn")
    if memory.metadata.get("kind") == TURN_KIND or not isinstance(said_in, str):
        return False
    return (memory.api_key_id, said_in) in shown


def said_already(memory: Memory, said: frozenset[str]) -> bool:
    """A stored turn that the request's own messages carry (a client sends the history
    with each message): recalled, it would say the same words twice."""
    if not said or memory.metadata.get("kind") != TURN_KIND:
        return False
    return " ".join(memory.content.split()) in said


def why(candidate: Candidate, floor: float | None) -> str:
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


def public(candidate: Candidate, tokens: int, reason: str | None = None) -> RetrievedMemory:
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
