"""Token estimate shared by retrieval budgets, stats and summarization."""

from __future__ import annotations

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens"]

# The reference's estimate: cheap and provider-neutral. Storage computes the same in
# SQL for its totals, from this constant.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / CHARS_PER_TOKEN)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
