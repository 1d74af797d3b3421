"""MCP clients for tests: the SDK's own ``Client`` over stdio (``engram mcp`` as a
subprocess) and over Streamable HTTP (with a bearer API key)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(scenario())  # type: ignore[arg-type]


def stdio_params(db_url: str, secret: str, data_dir: Path) -> StdioServerParameters:
    """``engram mcp`` as an MCP client's config runs it: the key in ENGRAM_API_KEY."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "MEMORY_"))}
    env |= {"ENGRAM_DB_URL": db_url, "ENGRAM_API_KEY": secret, "ENGRAM_DATA_DIR": str(data_dir)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "shared.devtools.cli", "mcp"], env=env, cwd=ROOT
    )


@asynccontextmanager
async def http_client(url: str, secret: str | None, mode: str = "legacy") -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {secret}"} if secret else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


def error_text(result: Any) -> str:
    assert result.is_error, result.structured_content
    return str(result.content[0].text)
