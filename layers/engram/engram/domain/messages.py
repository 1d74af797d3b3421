"""Reading an OpenAI chat request body and its answer: the user's last message, what
was said before it, the opening a persona speaks, the names people go by, the text of an
answer or of a streamed chunk. Pure functions over the JSON, no I/O."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from engram.domain.models import MAX_CONTEXT_TURNS

__all__ = [
    "answer_of",
    "assistant_name",
    "context",
    "continues",
    "delta_of",
    "last_user",
    "last_user_text",
    "opening",
    "opted_out",
    "resolve_provider",
    "said",
    "text_of",
    "usable_name",
]

_OPT_OUT = {"true", "1", "yes"}
_O1_FAMILY = re.compile(r"^o1(?:$|-mini|-preview|-\d)", re.IGNORECASE)


def opted_out(header_value: str | None) -> bool:
    """``x-engram-no-memory: true|1|yes`` (any case) turns memory off for one request."""
    return (header_value or "").strip().lower() in _OPT_OUT


def resolve_provider(model: str | None, configured: str | None = None) -> str | None:
    """The provider whose injection rule applies.

    1. ``ENGRAM_UPSTREAM_PROVIDER`` when set (the upstream serves one provider);
    2. the ``provider/`` prefix of the model id (``glm/glm-4.5`` -> ``glm``), as
       routers such as OmniRoute name models;
    3. the o1 family by model id (``o1``, ``o1-mini``, ``o1-preview``, ``o1-2024-12-17``),
       which rejects system messages whoever serves it;
    4. otherwise unknown (None), which accepts a system message.
    """
    if configured:
        return configured.strip().lower()
    if not model:
        return None
    if "/" in model:
        return model.split("/", 1)[0].strip().lower() or None
    if _O1_FAMILY.match(model):
        return "o1"
    return None


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones (and only text)
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type") == "text"
            and isinstance(part.get("text"), str)
        )
    return ""


def last_user_text(body: Mapping[str, Any]) -> str:
    return last_user(body)[0]


def last_user(body: Mapping[str, Any]) -> tuple[str, str | None]:
    """The last user message's text, and its ``name`` when it has a usable one."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return "", None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return text_of(message.get("content")), usable_name(message)
    return "", None


def said(body: Mapping[str, Any]) -> list[str]:
    """The texts the request's messages carry: a stored turn saying one of them is
    already in the prompt, and is not recalled beside it."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    return [
        text_of(m.get("content"))
        for m in messages
        if isinstance(m, dict) and m.get("role") in _SIDES
    ]


def continues(body: Mapping[str, Any]) -> bool:
    """Whether the request carries on an answer already begun: an assistant or tool
    message after the user's last one (tool results, a prefilled answer). That user
    message was read, and stored, with the request that began the answer."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return False
    for message in reversed(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "user":
            return False
        if role in ("assistant", "tool", "function"):
            return True
    return False


def usable_name(message: Mapping[str, Any]) -> str | None:
    name = message.get("name")
    name = name.strip() if isinstance(name, str) else ""
    return name if 0 < len(name) <= 64 else None


# At most this many opening messages of the assistant are stored with a first exchange.
MAX_OPENING_TURNS = 3
_SIDES = ("user", "assistant")


def opening(body: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """The assistant's messages that open the conversation (a greeting, a persona's first
    words, the other side speaking first) when this request holds its first user message:
    no answer through the proxy ever carried them. Later requests repeat them in their
    history, but those hold an earlier user message, so the opening is taken once."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    spoken = [m for m in messages if isinstance(m, dict) and m.get("role") in _SIDES]
    roles = [m.get("role") for m in spoken]
    if roles.count("user") != 1:
        return []
    opening = [(text_of(m.get("content")), usable_name(m)) for m in spoken[: roles.index("user")]]
    return [(text, name) for text, name in opening if text.strip()][-MAX_OPENING_TURNS:]


def context(body: Mapping[str, Any]) -> list[tuple[str, str, str | None]]:
    """The messages before the user's last one (the newest few), as (role, text, name):
    what an extractor reads to know what "this", "there" and "it" are."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    spoken = [m for m in messages if isinstance(m, dict) and m.get("role") in _SIDES]
    last_user = max((i for i, m in enumerate(spoken) if m.get("role") == "user"), default=-1)
    before = spoken[:last_user] if last_user >= 0 else spoken
    said = [(str(m["role"]), text_of(m.get("content")), usable_name(m)) for m in before]
    return [(role, text, name) for role, text, name in said if text.strip()][-MAX_CONTEXT_TURNS:]


def assistant_name(body: Mapping[str, Any]) -> str | None:
    """The name the client gives the assistant: the ``name`` of its latest message in the
    history that has one (a persona, the other side of a conversation), else None."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            name = usable_name(message)
            if name is not None:
                return name
    return None


def answer_of(payload: bytes) -> str:
    try:
        content = json.loads(payload)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return ""
    return content if isinstance(content, str) else ""


def delta_of(line: str) -> str:
    if not line.startswith("data:"):
        return ""
    data = line[5:].strip()
    if not data or data == "[DONE]":
        return ""
    try:
        content = json.loads(data)["choices"][0]["delta"].get("content")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return ""
    return content if isinstance(content, str) else ""
