"""Engram's memory as MCP tools (``tools.py``), served by one MCP server (``server.py``)
over stdio (``stdio.py``, ``engram mcp``) and stateless Streamable HTTP
(``shared/http/routers/mcp.py``, ``POST /mcp``)."""

from .server import ApiKeyResolver, build_server
from .tools import TOOLS, Tool, call_tool

__all__ = ["TOOLS", "ApiKeyResolver", "Tool", "build_server", "call_tool"]
