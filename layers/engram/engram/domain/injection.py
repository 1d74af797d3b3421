"""Injecting retrieved memories into an OpenAI-style chat request.

``inject`` returns a new request and never mutates its input. Providers that
accept a system role get a system message *before* any existing one (so the
application's own system prompt, coming later, keeps precedence); providers
that reject the role get the text as the first user message. The cache-safe
mode appends to the first system message instead, leaving the prompt prefix
(and so the provider's prompt cache) intact.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

from engram.domain.models import Memory

__all__ = [
    "MEMORY_HEADER",
    "PROFILE_HEADING",
    "PROVIDERS_WITHOUT_SYSTEM_ROLE",
    "RECALL_HEADING",
    "format_memories",
    "inject",
    "provider_supports_system",
]

MEMORY_HEADER = "Memory context:"
# A dated fact's day (metadata.when, an ISO 8601 date the extractors write).
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# These providers answer 400 to a system message (the reference's issue #1701 for GLM).
PROVIDERS_WITHOUT_SYSTEM_ROLE = frozenset(
    {"o1", "o1-mini", "o1-preview", "glm", "glmt", "glm-cn", "zai", "qianfan"}
)


def provider_supports_system(provider: str | None) -> bool:
    """Unknown providers are assumed to accept a system message."""
    return (provider or "").strip().lower() not in PROVIDERS_WITHOUT_SYSTEM_ROLE


PROFILE_HEADING = "About the user (always applies):"
RECALL_HEADING = "Recalled for this message:"


def format_memories(memories: Sequence[Memory]) -> str:
    """``Memory context:`` then one memory per line, labelled with its category and, for
    a dated fact, its day; what the assistant said is labelled as such, never passed off
    as the user's; a stored turn (conversation memory) says who said it and when. With a
    profile (retrieved memories of tier ``profile``), the block says which memories
    always apply and which were recalled for this message."""
    profile = [m for m in memories if getattr(m, "tier", None) == "profile"]
    recall = [m for m in memories if getattr(m, "tier", None) != "profile"]
    lines = [MEMORY_HEADER]
    if profile:
        lines += [PROFILE_HEADING, *map(_line, profile)]
        if recall:
            lines.append(RECALL_HEADING)
    lines += map(_line, recall)
    return "\n".join(lines)


def _line(memory: Memory) -> str:
    category = memory.metadata.get("category")
    text = " ".join(memory.content.split())
    label = category if isinstance(category, str) else ""
    when = memory.metadata.get("when")
    if isinstance(when, str) and _DAY.match(when):
        label = f"{label} on {when}" if label else when
    if memory.metadata.get("kind") == "turn":  # a stored turn, not a fact
        speaker = memory.metadata.get("speaker")
        who = "the assistant" if memory.metadata.get("role") == "assistant" else "the user"
        if isinstance(speaker, str) and speaker not in ("user", "assistant"):
            who = f"{speaker} ({who})"
        label = f"{who} said on {memory.created_at:%Y-%m-%d}"
    elif memory.metadata.get("source") == "assistant":
        label = f"said by the assistant, {label}" if label else "said by the assistant"
    return f"- {label}: {text}" if label else f"- {text}"


def inject(
    request: Mapping[str, Any],
    memories: Sequence[Memory],
    provider: str | None,
    *,
    cache_safe: bool = False,
) -> dict[str, Any]:
    """A copy of ``request`` with the memories added to its messages."""
    result = copy.deepcopy(dict(request))
    messages = result.get("messages")
    if not memories or not isinstance(messages, list):
        return result
    text = format_memories(memories)
    if not provider_supports_system(provider):
        result["messages"] = [{"role": "user", "content": text}, *messages]
        return result
    if cache_safe:
        for message in messages:
            if isinstance(message, dict) and message.get("role") == "system":
                _append_text(message, text)
                return result
    result["messages"] = [{"role": "system", "content": text}, *messages]
    return result


def _append_text(message: dict[str, Any], text: str) -> None:
    content = message.get("content")
    if isinstance(content, list):
        message["content"] = [*content, {"type": "text", "text": text}]
    elif isinstance(content, str) and content:
        message["content"] = f"{content}\n\n{text}"
    else:
        message["content"] = text
