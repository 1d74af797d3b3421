"""Token estimate shared by retrieval budgets, stats and summarization, and the one walk
that fits ranked items into a budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens", "fit"]

T = TypeVar("T")

# The reference's estimate: cheap and provider-neutral. Storage computes the same in
# SQL for its totals, from this constant.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / CHARS_PER_TOKEN)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def fit(
    ranked: Sequence[T],
    cost: Callable[[T], int],
    budget: int,
    limit: int,
    *,
    at_least_one: bool = False,
) -> list[tuple[T, int]]:
    """The items, in their order, that fit ``budget`` tokens, at most ``limit`` of them,
    each with its cost. An item that does not fit is skipped and the ones after it keep
    their chance: a long memory never keeps shorter, lower-ranked ones out.

    ``at_least_one``: when nothing fits but something was ranked and there is any room
    at all, the first item anyway; one memory a little over budget tells the model more
    than none (the recall tier's rule, whichever backend ranked it)."""
    chosen: list[tuple[T, int]] = []
    used = 0
    for item in ranked:
        if len(chosen) >= limit:
            break
        tokens = cost(item)
        if used + tokens > budget:
            continue
        chosen.append((item, tokens))
        used += tokens
    if not chosen and at_least_one and ranked and budget > 0 and limit > 0:
        return [(ranked[0], cost(ranked[0]))]
    return chosen
