"""Conversation memory (``storeConversation``): the proxy's turns stored as episodic
memories of their session, beside the facts extracted from them.

Each turn becomes one memory with Engram's own metadata (never the caller's): ``kind``
``turn``, the ``role``, the ``speaker`` (the message's ``name``, else the role) and the
time of the chat. Its key is derived from the chat request and the turn's place in it
(an opening's, from its session and text), so a redelivered job finds the same
memories. The text was redacted when the job was made; what is stored is at most
``MAX_CONTENT_CHARS`` (the beginning of a longer turn).
"""

from __future__ import annotations

import hashlib

from engram.domain.models import MAX_CONTENT_CHARS, ExtractionJob, MemoryCreate, MemoryType

__all__ = ["TURN_KIND", "turn_key", "turn_memories"]

TURN_KIND = "turn"
_MORE = " …"


def _clip(text: str) -> str:
    text = text.strip()
    if len(text) <= MAX_CONTENT_CHARS:
        return text
    cut = text[: MAX_CONTENT_CHARS - len(_MORE)]
    space = cut.rfind(" ")
    return (cut[:space] if space > MAX_CONTENT_CHARS // 2 else cut) + _MORE


def turn_key(job: ExtractionJob, index: int) -> str | None:
    """The key of the memory the job's ``index``-th turn is stored as, if it is stored:
    the facts learnt from a turn name it (``metadata.turn``). The assistant's opening
    (its turns before the user's) is keyed by what it says in its session: a client
    that sends its fixed greeting with every message finds the same memory again."""
    if not job.conversation or index >= len(job.turns):
        return None
    text = _clip(job.turns[index].text)
    return _key(job, index, text) if text else None


def _key(job: ExtractionJob, index: int, text: str) -> str:
    """``turn_key`` of a turn whose stored ``text`` (clipped, not empty) is known."""
    if job.turns[index].role == "assistant" and any(
        t.role == "user" for t in job.turns[index + 1 :]
    ):
        said = f"{job.session_id or ''}\n{text}".encode()
        return f"{TURN_KIND}:opening:{hashlib.sha256(said).hexdigest()[:24]}"
    return f"{TURN_KIND}:{job.request_id}:{index}"


def turn_memories(job: ExtractionJob) -> list[MemoryCreate]:
    """The memories of the job's turns (none unless the job asks for them)."""
    if not job.conversation:
        return []
    items = []
    for index, turn in enumerate(job.turns):
        text = _clip(turn.text)
        if not text:
            continue
        metadata: dict[str, object] = {
            "kind": TURN_KIND,
            "role": turn.role,
            "speaker": turn.name or turn.role,
        }
        items.append(
            MemoryCreate(
                api_key_id=job.api_key_id,
                session_id=job.session_id,
                key=_key(job, index, text),
                type=MemoryType.EPISODIC,
                content=text,
                metadata=metadata,
            )
        )
    return items
