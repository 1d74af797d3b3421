"""The MCP server (the SDK's low-level ``Server``) over the tools of ``tools.py``.

Each call resolves the API key it acts for (``api_key``: the bearer key already checked
over HTTP, ``ENGRAM_API_KEY`` checked again over stdio so a revoked key stops at once),
makes its one engine call in a worker thread (the engine is synchronous), and answers
with the result as structured content and as JSON text. Whatever goes wrong in a call
is answered as a tool error the model can read (``isError``), never a crash of the
session; bugs are logged without the arguments (they may hold memories).
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from pydantic import ValidationError

from engram import Engine, EngramError
from engram.domain.models import ApiKey

from .tools import TOOLS, call_tool

__all__ = ["ApiKeyResolver", "build_server"]

log = logging.getLogger("engram.mcp")

# Given the engine, the key a call acts for (or an AuthenticationError).
ApiKeyResolver = Callable[[Engine], ApiKey]

INSTRUCTIONS = (
    "Engram is the user's long-term memory. Search it (memory_search) before answering "
    "anything that may depend on what the user said in earlier conversations; remember "
    "(memory_add) durable facts, preferences and decisions the user states; delete or "
    "clear only when the user asks."
)


def _version() -> str:
    try:
        return version("engram")
    except PackageNotFoundError:
        return "0.0.0"


@functools.cache
def _tool_list() -> list[types.Tool]:
    """Built once per process: JSON schemas take pydantic milliseconds, and the stateless
    HTTP transport builds a server per request."""
    return [
        types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description,
            input_schema=tool.input_schema(),
            output_schema=tool.output_schema(),
            annotations=types.ToolAnnotations(
                title=tool.title,
                read_only_hint=tool.read_only,
                destructive_hint=tool.destructive,
                idempotent_hint=tool.idempotent,
                open_world_hint=False,
            ),
        )
        for tool in TOOLS.values()
    ]


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def _invalid(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"])
        problems.append(f"{where}: {error['msg']}" if where else error["msg"])
    return "invalid arguments: " + "; ".join(problems)


def build_server(engine: Callable[[], Engine], api_key: ApiKeyResolver) -> Server[Any]:
    """A server whose every tool call acts for the key ``api_key`` resolves."""
    tools = _tool_list()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    def run(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        built = engine()
        return call_tool(built, api_key(built).id, name, arguments)

    async def call(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in TOOLS:
            return _error(f"unknown tool {params.name!r}; the tools are {', '.join(TOOLS)}")
        try:
            result = await anyio.to_thread.run_sync(run, params.name, params.arguments or {})
        except ValidationError as exc:
            return _error(_invalid(exc))
        except EngramError as exc:
            field = f" ({exc.field})" if exc.field else ""
            return _error(f"{exc.message}{field}")
        except Exception as exc:  # a bug: the session goes on, the log says which tool
            log.error("tool %s failed: %s", params.name, type(exc).__name__, exc_info=True)
            return _error(f"{params.name} failed with an internal error")
        text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
        return types.CallToolResult(
            content=[types.TextContent(text=text)], structured_content=result
        )

    return Server(
        "engram",
        version=_version(),
        title="Engram memory",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call,
    )
