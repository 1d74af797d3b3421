"""The FastAPI application factory: one app, assembled from the routers asked for.

Lambda functions mount the routers they serve; the local server mounts them all
(it is the API Gateway of local mode). The engine is built lazily, on the first
request that needs it, so importing a handler stays cheap.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Generic, TypeVar

from fastapi import FastAPI
from pydantic import BaseModel

from engram import Config, Engine, build_engine
from engram.domain.models import MemoryImport

from ..secrets import load_runtime_config
from .access import AccessLog
from .api_docs import install_api_docs
from .budget import DatabaseBudget
from .errors import install_error_handlers
from .limits import BodyLimits
from .routers import ORDER, load
from .tracing import WebAdapterTrace

__all__ = ["Lazy", "create_app"]


def _version() -> str:
    try:
        return version("engram")
    except PackageNotFoundError:
        return "0.0.0"


T = TypeVar("T")


class Lazy(Generic[T]):
    """Built on first use, once; a factory that raises is tried again next time."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._built: list[T] = []

    @property
    def ready(self) -> bool:
        """Built already: calling returns at once, without blocking."""
        return bool(self._built)

    def __call__(self) -> T:
        if not self._built:
            with self._lock:
                if not self._built:
                    self._built.append(self._factory())
        return self._built[0]


def create_app(
    routers: Iterable[str] = ORDER,
    *,
    config: Config | None = None,
    engine: Callable[[], Engine] | None = None,
    web_adapter: bool = False,
) -> FastAPI:
    """The app serving ``routers``. ``engine`` builds the engine (the composition root's
    ``build_engine`` by default); tests hand in one they built with their own parts.

    ``web_adapter``: served by uvicorn behind the Lambda Web Adapter (the streamed chat
    function). Each request is then traced from the trace header the adapter forwards
    (``tracing.py``), and a buffered chat answer is sent only once its extraction job is
    queued: the invocation ends with the response, and work left for after it (a
    background task) may be frozen with the sandbox and never reach the queue. Under
    Mangum the whole ASGI call, background included, is awaited before the invocation
    returns, and locally nothing freezes: there the job is queued after the answer."""
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
        # /docs is served from local assets (api_docs.py); ReDoc would need a CDN too.
        docs_url=None,
        redoc_url=None,
    )
    app.state.config = config
    app.state.web_adapter = web_adapter
    app.state.engine = Lazy(engine if engine is not None else lambda: build_engine(config))
    install_error_handlers(app)

    app.add_middleware(DatabaseBudget, seconds=config.db_timeout_s)
    app.add_middleware(AccessLog)
    if web_adapter:
        app.add_middleware(WebAdapterTrace)
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
    install_api_docs(app)
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
