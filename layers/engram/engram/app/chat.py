"""The chat use case: prepare (retrieve, inject) -> forward -> collect -> enqueue.

Memory never fails a chat: every memory error is logged and the request goes on
without memory (fail-open); the extraction job is queued once the answer is
complete (for a stream, after its last chunk), and a failure to queue it is
logged. Upstream answers pass through with their status and body; an unreachable
upstream is ``UpstreamError``, a slow one ``UpstreamTimeout``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from engram.app.health import FailureLog
from engram.app.settings import SettingsStore
from engram.domain import messages as request_body
from engram.domain.errors import EngramError, log_safe
from engram.domain.injection import inject
from engram.domain.models import (
    MAX_CONTENT_CHARS,
    MAX_CONTEXT_CHARS,
    ChatOptions,
    ExtractionJob,
    InjectionMode,
    InjectionPreview,
    JobTurn,
    PreviewRequest,
    PreviewResult,
    RetrievalRequest,
    RetrievalResult,
    Scope,
    Strategy,
)
from engram.domain.models.common import from_millis
from engram.domain.models.facts import newest
from engram.domain.redaction import redact
from engram.ports import JobQueue, Upstream, UpstreamResponse

__all__ = [
    "ChatReply",
    "ChatService",
    "PreparedChat",
    "Retrieval",
]

log = logging.getLogger(__name__)

# Response headers worth passing back; hop-by-hop and length headers are not.
_PASS_HEADERS = ("content-type", "openai-processing-ms", "x-request-id", "retry-after")
# Retrieval reads at most this much of the last user message as its query.
_MAX_QUERY_CHARS = 16_000


class Retrieval(Protocol):
    """What the chat path retrieves with: the backend manager (the primary backend's
    search, then the fallbacks'), or the libSQL ``Retriever`` itself."""

    def retrieve(self, api_key_id: str, request: RetrievalRequest) -> RetrievalResult: ...

    def preview(self, api_key_id: str, request: RetrievalRequest) -> RetrievalResult: ...


@dataclass
class PreparedChat:
    body: dict[str, Any]
    memory_on: bool
    injected: int = 0
    notes: list[str] = field(default_factory=list)
    # Whether the answer is read for facts too (``extractFrom: both``).
    read_answer: bool = False
    # Whether the turns are stored themselves (``storeConversation``).
    conversation: bool = False


@dataclass
class ChatReply:
    """What to send back: the upstream's status and headers, then either the whole body
    (and ``finish`` to run once it is sent) or a stream that finishes by itself."""

    status: int
    headers: dict[str, str]
    body: bytes = b""
    stream: AsyncIterator[bytes] | None = None
    finish: Callable[[], Awaitable[None]] | None = None


class ChatService:
    def __init__(
        self,
        retriever: Retrieval,
        settings: SettingsStore,
        upstream: Upstream,
        queue: JobQueue,
        *,
        provider: str | None = None,
        failures: FailureLog | None = None,
        now_ms: Callable[[], int] | None = None,
    ) -> None:
        self.failures = failures or FailureLog(lambda: 0)
        self.retriever = retriever
        # The engine's clock: a stored turn is dated by when the chat happened.
        self.now_ms = now_ms or (lambda: int(time.time() * 1000))
        self.settings = settings
        self.upstream = upstream
        self.queue = queue
        # The provider behind the upstream when the deployment names one.
        self.provider = provider

    # -- the use case -----------------------------------------------------------------------

    async def complete(
        self, api_key_id: str, body: dict[str, Any], options: ChatOptions
    ) -> ChatReply:
        """Forward one chat completion with memory, and queue what it taught us."""
        started_at = from_millis(self.now_ms())
        scope = options.scope
        if scope is Scope.SESSION and options.session_id is None:
            scope = Scope.API_KEY  # nothing to narrow to: the key's whole pool
        prepared = await asyncio.to_thread(
            self.prepare,
            api_key_id,
            body,
            provider=request_body.resolve_provider(body.get("model"), self.provider),
            session_id=options.session_id,
            scope=scope,
            opt_out=options.opt_out,
            strategy=options.strategy,
            injection_mode=options.injection_mode,
        )
        upstream = await self._send("POST", "/chat/completions", prepared.body)
        request_id = "chat-" + uuid.uuid4().hex
        extract = prepared.memory_on and upstream.is_success
        headers = _passed_headers(upstream, prepared.injected)

        async def enqueue(answer: str) -> None:
            if not extract:
                return
            try:
                # Off the event loop: redacting a long message takes milliseconds of CPU
                # that other chats would wait for.
                job = await asyncio.to_thread(
                    self.extraction_job,
                    api_key_id,
                    body,
                    answer if prepared.read_answer else "",
                    request_id,
                    options.session_id,
                    conversation=prepared.conversation,
                    at=started_at,
                    read_answer=prepared.read_answer,
                )
                if job is not None:
                    await asyncio.to_thread(self.queue.send, job)
            except Exception as exc:  # the answer is sent already: log, never raise
                log.warning("extraction job %s was not queued: %s", request_id, log_safe(exc))
                self.failures.failed("extraction queue", log_safe(exc))
            else:
                self.failures.recovered("extraction queue")

        streamed = "text/event-stream" in upstream.headers.get("content-type", "")
        if body.get("stream") and streamed:
            return ChatReply(
                upstream.status_code, headers, stream=_relay(upstream, extract, enqueue)
            )
        try:
            content = await upstream.aread()
        finally:
            await upstream.aclose()
        return ChatReply(
            upstream.status_code,
            headers,
            body=content,
            finish=functools.partial(enqueue, request_body.answer_of(content)),
        )

    async def models(self) -> ChatReply:
        """The upstream's model list, passed through."""
        upstream = await self._send("GET", "/models")
        try:
            content = await upstream.aread()
        finally:
            await upstream.aclose()
        return ChatReply(upstream.status_code, _passed_headers(upstream, 0), body=content)

    # -- its steps ---------------------------------------------------------------------------

    async def _send(self, method: str, path: str, body: Any = None) -> UpstreamResponse:
        try:
            response = await self.upstream.send(method, path, json=body)
        except EngramError as exc:
            self.failures.failed("upstream", exc.message)
            raise
        if response.status_code >= 500:
            self.failures.failed("upstream", f"answered {response.status_code}")
        else:
            self.failures.recovered("upstream")
        return response

    def prepare(
        self,
        api_key_id: str,
        body: dict[str, Any],
        *,
        provider: str | None,
        session_id: str | None = None,
        scope: Scope = Scope.API_KEY,
        opt_out: bool = False,
        strategy: Strategy | None = None,
        injection_mode: InjectionMode | None = None,
    ) -> PreparedChat:
        """The body to forward: with memories injected when memory is on, else untouched.
        ``strategy`` and ``injection_mode`` override the settings' for this request."""
        try:
            settings = self.settings.get()
        except Exception as exc:  # memory never fails a chat: forward without it
            log.warning("memory settings unavailable; forwarding without memory: %s", log_safe(exc))
            return PreparedChat(body, memory_on=False, notes=["settings unavailable"])
        if not settings.enabled or opt_out:
            return PreparedChat(body, memory_on=False)
        read_answer = settings.extract_from == "both"
        conversation = settings.store_conversation
        try:
            query = request_body.last_user_text(body)
            result = self.retriever.retrieve(
                api_key_id,
                RetrievalRequest(
                    query=query[:_MAX_QUERY_CHARS],
                    session_id=session_id,
                    scope=scope,
                    strategy=strategy,
                ).saying(request_body.said(body)),
            )
            if not result.results:
                return PreparedChat(
                    body, memory_on=True, read_answer=read_answer, conversation=conversation
                )
            mode = injection_mode or settings.injection_mode
            injected = inject(body, result.results, provider, cache_safe=mode == "cacheSafe")
        except Exception as exc:  # memory never fails a chat: forward without it
            # The failure, never its message: a validation error quotes the user's text.
            log.warning("memory retrieval failed; forwarding without memory: %s", log_safe(exc))
            self.failures.failed("chat memory", log_safe(exc))
            return PreparedChat(
                body,
                memory_on=True,
                notes=["retrieval failed"],
                read_answer=read_answer,
                conversation=conversation,
            )
        return PreparedChat(
            injected,
            memory_on=True,
            injected=len(result.results),
            read_answer=read_answer,
            conversation=conversation,
        )

    def preview(self, api_key_id: str, request: PreviewRequest) -> PreviewResult:
        """The retrieval preview, and the exact messages the upstream would receive:
        the same ranking as the chat path (read-only), injected by the same rule (the
        provider of ``model``, the injection mode asked for or the settings')."""
        messages = (
            [m.model_dump(exclude_unset=True) for m in request.messages]
            if request.messages
            else [{"role": "user", "content": request.query}]
        )
        body: dict[str, Any] = {"messages": messages}
        if request.model is not None:
            body["model"] = request.model
        wanted = request.model_dump(
            by_alias=False, exclude_unset=True, exclude={"messages", "model", "injection_mode"}
        )
        if not request.query:
            wanted["query"] = request_body.last_user_text(body)[:_MAX_QUERY_CHARS]
        retrieval = RetrievalRequest.model_validate(wanted).saying(request_body.said(body))
        result = self.retriever.preview(api_key_id, retrieval)
        mode = request.injection_mode or self.settings.get().injection_mode
        provider = request_body.resolve_provider(request.model, self.provider)
        injected = inject(body, result.results, provider, cache_safe=mode == "cacheSafe")
        return PreviewResult(
            **dict(result),
            injection=InjectionPreview(mode=mode, provider=provider, messages=injected["messages"]),
        )

    @staticmethod
    def extraction_job(
        api_key_id: str,
        body: Mapping[str, Any],
        answer: str,
        request_id: str,
        session_id: str | None = None,
        *,
        conversation: bool = False,
        at: datetime | None = None,
        read_answer: bool | None = None,
    ) -> ExtractionJob | None:
        """The job for one finished exchange, or None when there is nothing to read.

        Its text is redacted here, before it is queued: a secret pasted into a chat
        never reaches the queue, let alone storage. ``answer`` is "" unless the
        settings read the assistant's words too (``read_answer`` says whether they do;
        by default, whether there is an answer).
        """
        # A request carrying on an answer (tool results) reads only the answer: the user's
        # message and the opening came with the request that began it.
        continuing = request_body.continues(body)
        said, name = ("", None) if continuing else request_body.last_user(body)
        # With the assistant's words read and the turns stored, the assistant's opening
        # messages are turns of the conversation too.
        reads_assistant = bool(answer) if read_answer is None else read_answer
        wanted = conversation and reads_assistant and not continuing
        opening = request_body.opening(body) if wanted else []
        # An opening is at most what a stored turn keeps (its beginning), so that three of
        # them with the exchange still fit one queue message.
        opening_turns = [
            JobTurn(role="assistant", text=redact(text)[:MAX_CONTENT_CHARS], name=who)
            for text, who in opening
        ]
        turns = opening_turns + [
            JobTurn(role=role, text=redact(newest(text)), name=who)
            for role, text, who in (
                ("user", said, name),
                ("assistant", answer, request_body.assistant_name(body)),
            )
            if text.strip()
        ]
        if not turns:
            return None
        # The newest part of each earlier message: what "this", "there" or "it" points to.
        context = [
            JobTurn(role=role, text=redact(text)[-MAX_CONTEXT_CHARS:], name=who)
            for role, text, who in request_body.context(body)
        ]
        return ExtractionJob(
            api_key_id=api_key_id,
            session_id=session_id,
            turns=turns,
            context=context,
            request_id=request_id,
            conversation=conversation,
            at=at,
        )


async def _relay(
    upstream: UpstreamResponse, extract: bool, enqueue: Callable[[str], Awaitable[None]]
) -> AsyncIterator[bytes]:
    """The upstream's Server-Sent Events chunk by chunk, the answer read on the way."""
    answer: list[str] = []
    pending = ""
    try:
        async for chunk in upstream.aiter_raw():
            yield chunk
            if extract:
                pending += chunk.decode("utf-8", errors="replace")
                *lines, pending = pending.split("\n")
                answer += [request_body.delta_of(line) for line in lines]
    finally:
        await upstream.aclose()
    await enqueue("".join(answer) + request_body.delta_of(pending))


def _passed_headers(upstream: UpstreamResponse, injected: int) -> dict[str, str]:
    headers = {k: v for k, v in upstream.headers.items() if k.lower() in _PASS_HEADERS}
    headers["x-engram-memories"] = str(injected)
    return headers
