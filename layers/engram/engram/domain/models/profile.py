"""Which memories make the profile: the durable facts that shape every answer.

A profile memory is injected with every request, whatever its words, within its own
token budget (``profileTokens``); every other memory is recalled only when relevant to
the message. The tier is decided by category: who the user is (identity, which covers
name, language, diet and job as the extractors state them), health, home, family,
pets, and the standing instructions to the assistant, as states: a dated fact
(``metadata.when``: "got a puppy two weeks ago", "grandma passed away") is something that
happened or is planned, and is recalled when relevant. ``metadata.pinned`` overrides
it: ``true`` puts any memory in the profile, ``false`` keeps one out.

What the assistant said (``metadata.source: assistant``) is the other side's, not the
user's: it is recalled, never profiled, unless pinned. The SQL condition that reads
the profile (``adapters/libsql/profile.py``) states this same rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["PROFILE_CATEGORIES", "profile_rank", "profile_reason"]

# In the order they go into the prompt: how to answer first, then who the user is.
PROFILE_CATEGORIES = ("instruction", "identity", "health", "home", "family", "pet")


def profile_reason(metadata: Mapping[str, Any]) -> str | None:
    """Why a memory with this metadata is in the profile; None when it is not."""
    pinned = metadata.get("pinned")
    if pinned is True:
        return "pinned"
    if pinned is False or metadata.get("source") == "assistant" or "when" in metadata:
        return None
    category = metadata.get("category")
    if category in PROFILE_CATEGORIES:
        return "standing instruction" if category == "instruction" else f"category {category}"
    return None


def profile_rank(metadata: Mapping[str, Any]) -> int:
    """Where a profile memory goes among the others (lower first): pinned ones, then by
    category; recency breaks ties (the caller's order is kept)."""
    if metadata.get("pinned") is True:
        return 0
    category = metadata.get("category")
    if category in PROFILE_CATEGORIES:
        return 1 + PROFILE_CATEGORIES.index(category)
    return len(PROFILE_CATEGORIES) + 1
