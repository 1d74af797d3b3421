"""Management REST API: memories, bulk import/export, engine status and reindex,
settings, API keys."""

from shared.http import create_app
from shared.lambda_http import http_handler

app = create_app(routers=("status", "vectors", "bulk", "memory", "settings", "keys", "qdrant"))
handler = http_handler(app)
