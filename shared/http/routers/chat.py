"""The OpenAI-compatible chat proxy (``/v1/chat/completions``, ``/v1/models``).

The route parses the request and Engram's headers, makes one engine call
(``engine.chat.complete``: retrieve, inject, forward, collect, enqueue) and
shapes the reply: streamed as it arrives, or whole with the extraction queued
after it is sent.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import AfterValidator, WithJsonSchema
from starlette.background import BackgroundTask

from engram.app.chat import ChatReply
from engram.domain.messages import opted_out
from engram.domain.models import (
    INJECTION_MODES,
    ChatCompletionRequest,
    ChatOptions,
    InjectionMode,
    Scope,
)
from engram.domain.models.common import SessionId, StrategyName

from ..chat_auth import ApiKeyDep
from ..deps import EngineDep
from ..schemas import errors

# Besides Engram's own errors, the upstream's answers pass through with their status.
_UPSTREAM: dict[int | str, dict[str, Any]] = {
    "default": {"description": "The upstream provider's own answer, passed through"}
}
# The SPEC's values for x-engram-no-memory, any case; anything else is refused (422).
_FLAG = "^\\s*(?:[Tt][Rr][Uu][Ee]|1|[Yy][Ee][Ss]|[Ff][Aa][Ll][Ss][Ee]|0|[Nn][Oo])\\s*$"
_FLAG_RE = re.compile(_FLAG)


def _flag(value: str) -> str:
    # The schema states the pattern; a person reading the 422 gets the values in words.
    if not _FLAG_RE.match(value):
        raise ValueError("must be true, 1 or yes (no memory) or false, 0 or no (any case)")
    return value


NoMemory = Annotated[str, AfterValidator(_flag)]


def _header(schema: dict[str, Any]) -> WithJsonSchema:
    # An optional header is absent or text: never JSON null (schema without "null").
    return WithJsonSchema(schema, mode="validation")


router = APIRouter(tags=["chat"], responses={**errors(401, 502, 503, 504), **_UPSTREAM})


async def chat_options(
    x_engram_session_id: Annotated[
        SessionId | None, Header(description="Memories are stored under this session")
    ] = None,
    # Not nullable: a header is text, and "null" is no scope.
    x_engram_scope: Annotated[
        Scope, Header(description="What retrieval may see (default apiKey)")
    ] = Scope.API_KEY,
    x_engram_no_memory: Annotated[
        NoMemory | None,
        _header({"type": "string", "pattern": _FLAG}),
        Header(
            description="true, 1 or yes (any case): no retrieval, injection or extraction;"
            " false, 0 or no: memory as the settings say"
        ),
    ] = None,
    x_engram_strategy: Annotated[
        StrategyName | None,
        _header({"type": "string", "maxLength": 64}),
        Header(
            description="The retrieval strategy for this request, as in the settings"
            " (recent = exact, any other name = hybrid)"
        ),
    ] = None,
    x_engram_injection_mode: Annotated[
        InjectionMode | None,
        _header({"type": "string", "enum": list(INJECTION_MODES)}),
        Header(
            description="prepend (a system message of its own) or cacheSafe (merged into"
            " the first system message, so prompt caches keep hitting); default: the settings'"
        ),
    ] = None,
) -> ChatOptions:
    """Engram's own headers (validated like any field: 422 naming the header)."""
    return ChatOptions(
        session_id=x_engram_session_id,
        scope=x_engram_scope,
        opt_out=opted_out(x_engram_no_memory),
        strategy=x_engram_strategy,
        injection_mode=x_engram_injection_mode,
    )


ChatOptionsDep = Annotated[ChatOptions, Depends(chat_options)]


async def _response(reply: ChatReply, request: Request) -> Response:
    if reply.stream is not None:
        return StreamingResponse(reply.stream, reply.status, headers=reply.headers)
    finish = reply.finish
    if finish is not None and getattr(request.app.state, "web_adapter", False):
        await finish()  # see create_app: the answer then waits for the queue
        finish = None
    background = BackgroundTask(finish) if finish is not None else None
    return Response(reply.body, reply.status, headers=reply.headers, background=background)


@router.post(
    "/v1/chat/completions",
    responses={
        200: {
            "description": "The upstream's completion: JSON, or Server-Sent Events for a stream",
            "content": {"application/json": {}, "text/event-stream": {}},
        },
        **errors(400, 413, 422),
    },
)
async def chat_completions(
    request: Request,
    key: ApiKeyDep,
    body: ChatCompletionRequest,
    options: ChatOptionsDep,
    engine: EngineDep,
) -> Response:
    """OpenAI's chat completions, with memory: the relevant memories of the API key are
    injected, the upstream's answer passes through (streamed when asked), and the facts
    of the exchange are learnt afterwards, off the response path."""
    return await _response(await engine.chat.complete(key.id, body.forwarded(), options), request)


@router.get("/v1/models")
async def list_models(request: Request, key: ApiKeyDep, engine: EngineDep) -> Response:
    """The upstream's model list, passed through."""
    return await _response(await engine.chat.models(), request)
