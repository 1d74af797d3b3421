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
from typing import Any, TypeVar

from fastapi import FastAPI, Request, Response
from pydantic import BaseModel

from engram import Config, Engine, build_engine
from engram.models import MemoryImport

from ..observability import logger
from ..secrets import load_runtime_config
from .errors import install_error_handlers, internal_error
from .limits import BodyLimits
from .routers import ORDER, load

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


def create_app(
    routers: Iterable[str] = ORDER,
    *,
    config: Config | None = None,
    engine: Callable[[], Engine] | None = None,
) -> FastAPI:
    """The app serving ``routers``. ``engine`` builds the engine (the composition root's
    ``build_engine`` by default); tests hand in one they built with their own parts."""
    wanted = set(routers)
    unknown = wanted - set(ORDER)
    if unknown:
        raise ValueError(f"unknown routers: {sorted(unknown)}")
    # The environment, its secrets read at run time (shared/secrets.py).
    config = config if config is not None else load_runtime_config()
    app = FastAPI(
        title="Engram",
        version=_version(),
        description="A persistent memory layer for OpenAI-compatible chat applications.",
    )
    app.state.config = config
    app.state.engine = _lazy(engine if engine is not None else lambda: build_engine(config))
    install_error_handlers(app)

    @app.middleware("http")
    async def access_log(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        started = time.perf_counter()
        try:
            response = await call_next(request)
        except Exception as exc:  # a bug: answered here, logged without its message
            response = internal_error(request.url.path, exc)
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

    # Outermost: bodies are bounded before routing, authentication or parsing.
    app.add_middleware(
        BodyLimits,
        max_bytes=config.max_body_bytes,
        paths={
            "/v1/chat/completions": config.max_chat_body_bytes,
            "/api/memory/import": config.max_import_bytes,
        },
        max_depth=config.max_json_depth,
    )
    for name in ORDER:  # fixed paths before /api/memory/{id}
        if name in wanted:
            app.include_router(load(name))
    if "bulk" in wanted:
        _document(app, MemoryImport)  # the import's items, read by hand (NDJSON too)
    return app


def _document(app: FastAPI, *models: type[BaseModel]) -> None:
    """Add models no route signature names to the OpenAPI components."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            for model in models:
                found = model.model_json_schema(ref_template="#/components/schemas/{model}")
                for name, definition in found.pop("$defs", {}).items():
                    components.setdefault(name, definition)
                components[model.__name__] = found
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]
