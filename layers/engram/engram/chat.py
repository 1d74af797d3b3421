"""The memory side of a chat request: what to inject before, what to queue after.

Nothing here may fail a chat: every memory error is logged and the request goes
on without memory (fail-open). HTTP and the upstream call live at the edge.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import EngramError
from .injection import inject
from .models import ExtractionJob, RetrievalRequest, Scope
from .retrieval import Retriever
from .settings import SettingsStore

__all__ = ["ChatMemory", "PreparedChat", "last_user_text", "opted_out", "resolve_provider"]

log = logging.getLogger(__name__)

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


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "\n".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def last_user_text(body: Mapping[str, Any]) -> str:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return _text_of(message.get("content"))
    return ""


@dataclass
class PreparedChat:
    body: dict[str, Any]
    memory_on: bool
    injected: int = 0
    notes: list[str] = field(default_factory=list)


class ChatMemory:
    def __init__(self, retriever: Retriever, settings: SettingsStore) -> None:
        self.retriever = retriever
        self.settings = settings

    def prepare(
        self,
        api_key_id: str,
        body: dict[str, Any],
        *,
        provider: str | None,
        session_id: str | None = None,
        scope: Scope = Scope.API_KEY,
        opt_out: bool = False,
    ) -> PreparedChat:
        """The body to forward: with memories injected when memory is on, else untouched."""
        try:
            settings = self.settings.get()
        except EngramError:
            log.warning("memory settings unavailable; forwarding without memory", exc_info=True)
            return PreparedChat(body, memory_on=False, notes=["settings unavailable"])
        if not settings.enabled or opt_out:
            return PreparedChat(body, memory_on=False)
        query = last_user_text(body)
        try:
            result = self.retriever.retrieve(
                api_key_id,
                RetrievalRequest(query=query[:16_000], session_id=session_id, scope=scope),
            )
        except EngramError:
            log.warning("memory retrieval failed; forwarding without memory", exc_info=True)
            return PreparedChat(body, memory_on=True, notes=["retrieval failed"])
        if not result.results:
            return PreparedChat(body, memory_on=True)
        injected = inject(body, result.results, provider)
        return PreparedChat(injected, memory_on=True, injected=len(result.results))

    @staticmethod
    def extraction_job(
        api_key_id: str,
        body: Mapping[str, Any],
        answer: str,
        request_id: str,
        session_id: str | None = None,
    ) -> ExtractionJob | None:
        """The job for one finished exchange, or None when there is nothing to read."""
        text = "\n".join(t for t in (last_user_text(body), answer) if t.strip())
        if not text:
            return None
        return ExtractionJob(
            api_key_id=api_key_id,
            session_id=session_id,
            text=text[-200_000:],
            request_id=request_id,
        )
