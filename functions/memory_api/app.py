"""Management REST API: memories, bulk import/export, engine status and reindex,
settings, API keys; and Memory Studio, the dashboard that drives it (/studio)."""

from shared.http import create_app
from shared.lambda_http import http_handler

app = create_app(
    routers=("status", "vectors", "bulk", "memory", "settings", "keys", "qdrant", "studio")
)
handler = http_handler(app)
