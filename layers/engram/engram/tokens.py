"""Token estimate shared by retrieval budgets, stats and summarization."""

from __future__ import annotations

__all__ = ["estimate_tokens"]


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4): the reference's estimate, cheap and provider-neutral."""
    return (len(text) + 3) // 4
