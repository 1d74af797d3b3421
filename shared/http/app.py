"""The FastAPI application factory: one app, assembled from the routers asked for.

Lambda functions mount the routers they serve; the local server mounts them all
(it is the API Gateway of local mode). The engine is built lazily, on the first
request that needs it, so importing a handler stays cheap.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import TypeVar

from fastapi import FastAPI, Request, Response

from engram import Config, Engine, UnavailableError, build_engine
from engram.models import EmbeddingJob, ExtractionJob
from engram.ports import JobQueue

from ..observability import logger
from ..queues import InProcessQueue, Job, SqsQueue
from ..upstream import Upstream
from .errors import install_error_handlers
from .routers import ORDER, ROUTERS

__all__ = ["create_app"]


def _version() -> str:
    try:
        return version("engram")
    except PackageNotFoundError:
        return "0.0.0"


T = TypeVar("T")


def _lazy(factory: Callable[[], T]) -> Callable[[], T]:
    """Build on first use, once; a factory that raises is tried again next time."""
    lock = threading.Lock()
    built: list[T] = []

    def get() -> T:
        if not built:
            with lock:
                if not built:
                    built.append(factory())
        return built[0]

    return get


def _upstream(config: Config) -> Upstream:
    if not config.upstream_base_url:
        raise UnavailableError("no upstream provider: set ENGRAM_UPSTREAM_BASE_URL")
    key = config.upstream_api_key.get_secret_value() if config.upstream_api_key else None
    return Upstream(
        config.upstream_base_url,
        key,
        timeout_s=config.upstream_timeout_s,
        connect_timeout_s=config.upstream_connect_timeout_s,
    )


def _queue(config: Config, engine: Callable[[], Engine]) -> JobQueue:
    """SQS when a queue URL is configured (AWS); otherwise a worker thread in this process,
    which also computes the vectors of what it extracted (the local stack)."""
    if config.extraction_queue_url:
        return SqsQueue(config.extraction_queue_url, endpoint_url=config.aws_endpoint_url)
    local: list[InProcessQueue] = []

    def handle(job: Job) -> None:
        if isinstance(job, ExtractionJob):
            engine().process_extraction(job, local[0])
        elif isinstance(job, EmbeddingJob):
            engine().process_embedding(job)

    local.append(InProcessQueue(handle))
    return local[0]


def create_app(
    routers: Iterable[str] = ORDER,
    *,
    config: Config | None = None,
    engine: Callable[[], Engine] | None = None,
    queue: Callable[[], JobQueue] | None = None,
    upstream: Callable[[], Upstream] | None = None,
) -> FastAPI:
    wanted = set(routers)
    unknown = wanted - set(ROUTERS)
    if unknown:
        raise ValueError(f"unknown routers: {sorted(unknown)}")
    config = config if config is not None else Config()
    app = FastAPI(
        title="Engram",
        version=_version(),
        description="A persistent memory layer for OpenAI-compatible chat applications.",
    )
    app.state.config = config
    app.state.admin_token = config.admin_token.get_secret_value() if config.admin_token else None
    app.state.engine = get_engine = _lazy(
        engine if engine is not None else lambda: build_engine(config)
    )
    app.state.queue = _lazy(queue if queue is not None else lambda: _queue(config, get_engine))
    app.state.upstream = _lazy(upstream if upstream is not None else lambda: _upstream(config))
    install_error_handlers(app)

    @app.middleware("http")
    async def access_log(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        started = time.perf_counter()
        response = await call_next(request)
        # Method, route and status only: never bodies, queries or headers (secrets, memories).
        logger.info(
            "request",
            extra={
                "method": request.method,
                "path": request.url.path,
                "status": response.status_code,
                "ms": round((time.perf_counter() - started) * 1000, 2),
            },
        )
        return response

    for name in ORDER:  # fixed paths before /api/memory/{id}
        if name in wanted:
            app.include_router(ROUTERS[name])
    return app
