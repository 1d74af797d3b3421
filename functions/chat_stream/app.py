"""The chat proxy, streamed: ``/v1/chat/completions`` on a Lambda Function URL in
RESPONSE_STREAM mode through the AWS Lambda Web Adapter.

No Lambda handler here: ``run.sh`` (the function's Handler, started by the adapter's
``/opt/bootstrap`` wrapper) serves this ASGI app with uvicorn, and the adapter relays each
request to it and the response back as it is written, Server-Sent Events chunk by chunk.
Same app, routes and bearer-key authentication as ``chat_proxy``; extraction jobs go to
SQS (``ENGRAM_EXTRACTION_QUEUE_URL``) once the stream has ended, or, for a buffered
answer, before it is sent (``web_adapter``: nothing runs after the response here).
"""

from shared.http import create_app

app = create_app(routers=("chat",), web_adapter=True)
