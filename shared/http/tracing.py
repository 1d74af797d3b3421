"""X-Ray for the app served behind the Lambda Web Adapter (the streamed chat function).

The other functions are Lambda handlers: ``tracer.capture_lambda_handler`` opens their
``## handler`` subsegment inside the invocation's segment, whose trace id the runtime
puts in ``_X_AMZN_TRACE_ID``. Behind the adapter, the runtime client is the adapter, not
this process: uvicorn never sees that variable change, and the adapter forwards each
invocation's trace id as the ``x-amzn-trace-id`` header instead. This middleware hands
it to the X-Ray SDK (which reads the variable on every call) and opens one subsegment
per request, so the upstream call (httpx, patched by Powertools) nests under it. The
queue's boto3 call runs in a worker thread, where the SDK's context is the invocation's
segment: it is traced beside the request's subsegment, not in it. The adapter sends one
invocation at a time per sandbox, so one variable serves every request it relays.
"""

from __future__ import annotations

import os

from starlette.types import ASGIApp, Receive, Scope, Send

from ..observability import tracer

__all__ = ["WebAdapterTrace"]


class WebAdapterTrace:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        header = None
        if scope["type"] == "http" and not tracer.disabled:
            header = dict(scope["headers"]).get(b"x-amzn-trace-id")
        if header is None:
            await self.app(scope, receive, send)
            return
        os.environ["_X_AMZN_TRACE_ID"] = header.decode("latin-1")
        async with tracer.provider.in_subsegment_async(f"## {scope['path']}") as subsegment:
            subsegment.put_annotation("method", scope["method"])
            await self.app(scope, receive, send)
