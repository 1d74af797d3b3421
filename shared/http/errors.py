"""The one place engine errors become HTTP statuses, and every error body's shape.

Bodies follow OpenAI's error shape, so chat clients and management clients parse
the same thing: ``{"error": {"message", "type", "param"}}``; ``param`` names the
offending field when there is one.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Iterator, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from engram.domain.errors import (
    AuthenticationError,
    ConflictError,
    EngramError,
    InvalidInputError,
    NotFoundError,
    StorageError,
    UnavailableError,
    UpstreamError,
    UpstreamTimeout,
    log_safe,
)

from ..observability import logger

__all__ = ["error_body", "install_error_handlers", "internal_error", "status_for"]

# Most specific first: a ConflictError is also an InvalidInputError.
_STATUS: Sequence[tuple[type[EngramError], int, str]] = (
    (ConflictError, 409, "conflict_error"),
    (InvalidInputError, 422, "invalid_request_error"),
    (NotFoundError, 404, "not_found_error"),
    (AuthenticationError, 401, "authentication_error"),
    (StorageError, 503, "storage_unavailable"),
    (UnavailableError, 503, "service_unavailable"),
    (UpstreamTimeout, 504, "upstream_timeout"),
    (UpstreamError, 502, "upstream_error"),
)


def status_for(exc: EngramError) -> tuple[int, str]:
    for cls, status, kind in _STATUS:
        if isinstance(exc, cls):
            return status, kind
    return 500, "internal_error"


def error_body(
    message: str, kind: str, param: str | None = None, code: str | None = None, **extra: Any
) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code, **extra}}


def _field(loc: Sequence[int | str]) -> str:
    # loc[0] says where the value came from (body, query, path, header); the rest names it.
    parts = loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc
    return ".".join(str(p) for p in parts)


async def _engram_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, EngramError)
    status, kind = status_for(exc)
    if status >= 500:
        # One line: which failure, where. 503s are expected in an outage (the storage or a
        # tier is down) and come in bursts, so no traceback per request.
        logger.warning("request failed", extra={"path": request.url.path, "error": log_safe(exc)})
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    code = "invalid_api_key" if status == 401 else None
    extra = {"details": exc.details} if exc.details is not None else {}
    body = error_body(exc.message, kind, exc.field, code, **extra)
    return JSONResponse(body, status, headers=headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return JSONResponse(error_body("request body is not valid JSON", "invalid_json"), 400)
    details = [{"field": _field(e["loc"]), "message": e["msg"]} for e in errors]
    first = details[0]
    message = f"{first['field']}: {first['message']}" if first["field"] else first["message"]
    body = error_body(message, "invalid_request_error", first["field"] or None, details=details)
    return JSONResponse(body, 422)


def _hidden_routes(routes: Sequence[Any]) -> Iterator[APIRoute]:
    """The API routes not in the OpenAPI document, through included routers (FastAPI keeps
    those as wrappers holding the original router)."""
    for route in routes:
        if isinstance(route, APIRoute):
            if not route.include_in_schema:
                yield route
        elif hasattr(route, "original_router"):
            yield from _hidden_routes(route.original_router.routes)


def _allowed_methods(request: Request) -> str:
    """Every method the app serves at this path. (Starlette's 405 names only the first
    route that matched; FastAPI gives each method of a path its own route.)"""
    paths: list[tuple[re.Pattern[str], str]] | None = getattr(request.app.state, "allow", None)
    if paths is None:
        paths = []
        for template, operations in request.app.openapi().get("paths", {}).items():
            pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            methods = ", ".join(sorted(m.upper() for m in operations))
            paths.append((re.compile(f"^{pattern}$"), methods))
        # Routes left out of the document (the studio's pages, /mcp) have methods too.
        for route in _hidden_routes(request.app.routes):
            paths.append((route.path_regex, ", ".join(sorted(route.methods or ()))))
        request.app.state.allow = paths
    path = request.url.path
    return next((methods for pattern, methods in paths if pattern.match(path)), "")


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    kind = "not_found_error" if exc.status_code == 404 else "http_error"
    headers = dict(getattr(exc, "headers", None) or {})
    if exc.status_code == 405:
        headers["Allow"] = _allowed_methods(request)
    return JSONResponse(error_body(str(exc.detail), kind), exc.status_code, headers=headers)


def internal_error(path: str, exc: BaseException) -> JSONResponse:
    """A bug's answer: a bare 500 whose log line names the failure and its frames, never
    its message (which may quote request content)."""
    frames = "".join(traceback.format_tb(exc.__traceback__))[-4000:]
    logger.error("unhandled error", extra={"path": path, "error": log_safe(exc), "frames": frames})
    return JSONResponse(error_body("internal error", "internal_error"), 500)


def install_error_handlers(app: FastAPI) -> None:
    """Engine errors, validation and HTTP errors. Anything else is caught by the app's
    outermost middleware (``internal_error``): Starlette's own last-resort handler would
    re-raise it, and the server would log its message and traceback."""
    app.add_exception_handler(EngramError, _engram_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
