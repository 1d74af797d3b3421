"""Retrieval preview: a dry run of what the chat path would retrieve for a key."""

from shared.http import create_app
from shared.lambda_http import http_handler

app = create_app(routers=("preview",))
handler = http_handler(app)
