"""``engram mcp``: the MCP server over stdio, for one API key (``ENGRAM_API_KEY``).

stdout carries the protocol only; logs go to stderr. The key is checked at start (a
wrong key fails fast, with a message the MCP client shows in its log) and again on
every call, so a key revoked meanwhile stops working at once.
"""

from __future__ import annotations

import logging
import sys

import anyio
from mcp.server.stdio import stdio_server

from engram import AuthenticationError, Config, Engine, EngramError, open_engine
from engram.domain.models import ApiKey

from .server import build_server

__all__ = ["API_KEY_VARIABLE", "run_stdio"]

API_KEY_VARIABLE = Config.model_fields["api_key"].alias or "ENGRAM_API_KEY"


def run_stdio(config: Config) -> int:
    # The MCP client reads stdout: everything else, logs included, goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    secret = config.api_key.get_secret_value().strip() if config.api_key else ""
    if not secret:
        print(
            f"engram mcp: set {API_KEY_VARIABLE} to an Engram API key"
            " (engram keys create, or POST /api/keys)",
            file=sys.stderr,
        )
        return 2
    try:
        engine = open_engine(config)
    except EngramError as exc:
        print(f"engram mcp: cannot open the database: {exc.message}", file=sys.stderr)
        return 1

    def api_key(built: Engine) -> ApiKey:
        key = built.keys.authenticate(secret)
        if key is None:
            raise AuthenticationError(f"invalid or revoked API key ({API_KEY_VARIABLE})")
        return key

    try:
        try:
            api_key(engine)
        except AuthenticationError as exc:
            print(f"engram mcp: {exc.message}", file=sys.stderr)
            return 2
        server = build_server(lambda: engine, api_key)

        async def serve() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(serve)
    finally:
        engine.close()
    return 0
