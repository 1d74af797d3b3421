"""The OpenAI-compatible chat proxy (``/v1/chat/completions``, ``/v1/models``).

The route parses the request and Engram's headers, makes one engine call
(``engine.chat.complete``: retrieve, inject, forward, collect, enqueue) and
shapes the reply: streamed as it arrives, or whole with the extraction queued
after it is sent.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Response
from fastapi.responses import StreamingResponse
from pydantic import TypeAdapter, ValidationError
from starlette.background import BackgroundTask

from engram import InvalidInputError
from engram.chat import ChatReply, opted_out
from engram.models import ChatCompletionRequest, ChatOptions, Scope
from engram.models.common import SessionId

from ..chat_auth import ApiKeyDep
from ..deps import EngineDep

router = APIRouter(tags=["chat"])

_session = TypeAdapter(SessionId)
_scope = TypeAdapter(Scope)


def _header(name: str, value: str | None, adapter: TypeAdapter[Any]) -> Any:
    if value is None:
        return None
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise InvalidInputError(f"invalid {name} header", field=name) from exc


def chat_options(
    x_engram_session_id: Annotated[str | None, Header()] = None,
    x_engram_scope: Annotated[str | None, Header()] = None,
    x_engram_no_memory: Annotated[str | None, Header()] = None,
) -> ChatOptions:
    """Engram's headers: ``x-engram-session-id``, ``x-engram-scope: apiKey|session|global``,
    ``x-engram-no-memory: true|1|yes``."""
    return ChatOptions(
        session_id=_header("x-engram-session-id", x_engram_session_id, _session),
        scope=_header("x-engram-scope", x_engram_scope, _scope) or Scope.API_KEY,
        opt_out=opted_out(x_engram_no_memory),
    )


ChatOptionsDep = Annotated[ChatOptions, Depends(chat_options)]


def _response(reply: ChatReply) -> Response:
    if reply.stream is not None:
        return StreamingResponse(reply.stream, reply.status, headers=reply.headers)
    background = BackgroundTask(reply.finish) if reply.finish is not None else None
    return Response(reply.body, reply.status, headers=reply.headers, background=background)


@router.post("/v1/chat/completions")
async def chat_completions(
    key: ApiKeyDep, body: ChatCompletionRequest, options: ChatOptionsDep, engine: EngineDep
) -> Response:
    """OpenAI's chat completions, with memory: the relevant memories of the API key are
    injected, the upstream's answer passes through (streamed when asked), and the facts
    of the exchange are learnt afterwards, off the response path."""
    return _response(await engine.chat.complete(key.id, body.forwarded(), options))


@router.get("/v1/models")
async def list_models(key: ApiKeyDep, engine: EngineDep) -> Response:
    """The upstream's model list, passed through."""
    return _response(await engine.chat.models())
