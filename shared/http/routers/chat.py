"""The OpenAI-compatible chat proxy: retrieve, inject, forward, then queue extraction.

Memory never fails a chat: retrieval errors forward the request untouched, and
the extraction job is queued after the response is complete (for a stream, once
it has ended), its failures logged. Upstream answers pass through with their
status and body; an unreachable upstream is 502, a slow one 504.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import TypeAdapter, ValidationError
from starlette.background import BackgroundTask

from engram import EngramError, InvalidInputError
from engram.chat import opted_out, resolve_provider
from engram.models import ExtractionJob, Scope
from engram.models.common import SessionId

from ..chat_auth import ApiKeyDep
from ..deps import EngineDep

router = APIRouter(tags=["chat"])
log = logging.getLogger("engram.chat")

_session = TypeAdapter(SessionId)
_scope = TypeAdapter(Scope)
# Response headers worth passing back; hop-by-hop and length headers are not.
_PASS_HEADERS = ("content-type", "openai-processing-ms", "x-request-id", "retry-after")


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInputError("request body is not valid JSON") from exc
    if not isinstance(body, dict):
        raise InvalidInputError("request body must be a JSON object")
    if not isinstance(body.get("messages"), list) or not body["messages"]:
        raise InvalidInputError("messages must be a non-empty array", field="messages")
    if not isinstance(body.get("model"), str):
        raise InvalidInputError("model must be a string", field="model")
    return body


def _header(request: Request, name: str, adapter: TypeAdapter[Any]) -> Any:
    value = request.headers.get(name)
    if value is None:
        return None
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise InvalidInputError(f"invalid {name} header", field=name) from exc


def _answer_of(payload: bytes) -> str:
    try:
        content = json.loads(payload)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return ""
    return content if isinstance(content, str) else ""


def _delta_of(line: str) -> str:
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


async def _enqueue(request: Request, job: ExtractionJob | None) -> None:
    if job is None:
        return
    try:
        await run_in_threadpool(request.app.state.queue().send, job)
    except EngramError:
        log.warning("extraction job %s was not queued", job.request_id, exc_info=True)


def _passed_headers(upstream: httpx.Response, injected: int) -> dict[str, str]:
    headers = {k: v for k, v in upstream.headers.items() if k.lower() in _PASS_HEADERS}
    headers["x-engram-memories"] = str(injected)
    return headers


@router.post("/v1/chat/completions")
async def chat_completions(request: Request, key: ApiKeyDep, engine: EngineDep) -> Response:
    """OpenAI's chat completions, with memory. Headers: ``x-engram-session-id``,
    ``x-engram-no-memory: true|1|yes``, ``x-engram-scope: apiKey|session|global``."""
    body = await _json_body(request)
    session_id = _header(request, "x-engram-session-id", _session)
    scope = _header(request, "x-engram-scope", _scope) or Scope.API_KEY
    config = request.app.state.config
    prepared = await run_in_threadpool(
        engine.chat.prepare,
        key.id,
        body,
        provider=resolve_provider(body["model"], config.upstream_provider),
        session_id=session_id,
        scope=scope if scope is not Scope.SESSION or session_id else Scope.API_KEY,
        opt_out=opted_out(request.headers.get("x-engram-no-memory")),
    )
    upstream = await request.app.state.upstream().send(
        "POST", "/chat/completions", json=prepared.body
    )
    request_id = "chat-" + uuid.uuid4().hex
    extract = prepared.memory_on and upstream.is_success
    headers = _passed_headers(upstream, prepared.injected)

    def job(answer: str) -> ExtractionJob | None:
        if not extract:
            return None
        return engine.chat.extraction_job(key.id, body, answer, request_id, session_id)

    if body.get("stream") and "text/event-stream" in upstream.headers.get("content-type", ""):

        async def relay() -> AsyncIterator[bytes]:
            answer: list[str] = []
            pending = ""
            try:
                async for chunk in upstream.aiter_raw():
                    yield chunk
                    if extract:
                        pending += chunk.decode("utf-8", errors="replace")
                        *lines, pending = pending.split("\n")
                        answer += [_delta_of(line) for line in lines]
            finally:
                await upstream.aclose()
            await _enqueue(request, job("".join(answer) + _delta_of(pending)))

        return StreamingResponse(relay(), upstream.status_code, headers=headers)

    try:
        content = await upstream.aread()
    finally:
        await upstream.aclose()
    return Response(
        content,
        upstream.status_code,
        headers=headers,
        background=BackgroundTask(_enqueue, request, job(_answer_of(content))),
    )


@router.get("/v1/models")
async def list_models(request: Request, key: ApiKeyDep) -> Response:
    """The upstream's model list, passed through."""
    upstream = await request.app.state.upstream().send("GET", "/models")
    try:
        content = await upstream.aread()
    finally:
        await upstream.aclose()
    return Response(content, upstream.status_code, headers=_passed_headers(upstream, 0))
