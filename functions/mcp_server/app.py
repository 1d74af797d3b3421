"""The MCP server over stateless Streamable HTTP (``POST /mcp``): Engram's memory as
tools for MCP clients, acting for the bearer API key. No session affinity: any
instance answers any request, with a JSON response."""

from shared.http import create_app
from shared.lambda_http import http_handler

app = create_app(routers=("mcp",))
handler = http_handler(app)
