"""MCP over stateless Streamable HTTP (``POST /mcp``): Engram's memory as tools.

The route authenticates the bearer API key exactly as the chat proxy does (the same
keys, the same 401), then hands the request to the MCP SDK's Streamable HTTP transport
in stateless mode with JSON responses: a fresh transport per request, no session id,
nothing kept between requests, so any process (any Lambda instance) can answer any
request. The SDK's answer is buffered into one response (API Gateway buffers anyway).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Message

from engram import Engine
from engram.domain.models import ApiKey

from ...mcp import build_server
from ..chat_auth import ApiKeyDep
from ..deps import EngineDep
from ..schemas import errors

router = APIRouter(tags=["mcp"], responses=errors(401, 413))

_JSON_RPC: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "description": "A JSON-RPC 2.0 message of the Model Context Protocol",
                    "required": ["jsonrpc", "method"],
                    "properties": {
                        "jsonrpc": {"const": "2.0"},
                        "id": {"type": ["string", "integer"]},
                        "method": {"type": "string"},
                        "params": {"type": "object"},
                    },
                }
            }
        },
    }
}
# Response headers the buffered answer must not copy: the body is re-sent whole.
_HOP = {b"content-length", b"transfer-encoding"}


async def answer(request: Request, engine: Engine, key: ApiKey) -> Response:
    """One MCP request through the SDK's stateless transport, acting for ``key``."""
    server = build_server(lambda: engine, lambda _engine: key)
    manager = StreamableHTTPSessionManager(app=server, stateless=True, json_response=True)
    status = 500
    headers: list[tuple[bytes, bytes]] = []
    body = bytearray()

    async def send(message: Message) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _HOP]
        elif message["type"] == "http.response.body":
            body.extend(message.get("body", b""))

    async with manager.run():
        await manager.handle_request(request.scope, request.receive, send)
    response = Response(bytes(body), status_code=status)
    response.raw_headers = [*headers, (b"content-length", str(len(body)).encode())]
    return response


@router.post(
    "/mcp",
    # Not in the OpenAPI document: MCP is JSON-RPC with its own discovery (tools/list,
    # each tool's JSON schema), and the SDK's own answers (JSON-RPC errors, a text 400
    # for a wrong Content-Type) are not REST responses an OpenAPI client could use.
    include_in_schema=False,
    openapi_extra=_JSON_RPC,
    responses={
        200: {"description": "The JSON-RPC answer", "content": {"application/json": {}}},
        202: {"description": "A notification or response was accepted"},
        **errors(400),
    },
)
async def mcp(request: Request, key: ApiKeyDep, engine: EngineDep) -> Response:
    """The Model Context Protocol (Streamable HTTP, stateless, JSON responses): the tools
    ``memory_search``, ``memory_add``, ``memory_clear``, ``memory_list`` and
    ``memory_delete``, acting for the bearer API key. Send ``Accept: application/json,
    text/event-stream``, as MCP clients do."""
    return await answer(request, engine, key)
