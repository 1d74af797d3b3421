"""The OpenAI-compatible chat proxy with memory (``/v1/chat/completions``, ``/v1/models``).

In Lambda the response is buffered by Mangum, streamed or not; extraction jobs go
to SQS (``ENGRAM_EXTRACTION_QUEUE_URL``).
"""

from shared.http import create_app
from shared.lambda_http import http_handler

app = create_app(routers=("chat",))
handler = http_handler(app)
