"""Dependencies every router uses: the engine, and management authentication."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from engram import AuthenticationError, Engine

__all__ = ["AdminAuth", "EngineDep", "get_engine", "require_admin"]

_bearer = HTTPBearer(auto_error=False, description="ENGRAM_ADMIN_TOKEN")


def get_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine()
    return engine


def require_admin(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """``Authorization: Bearer <ENGRAM_ADMIN_TOKEN>``, compared in constant time."""
    expected: str | None = request.app.state.admin_token
    if not expected:
        raise AuthenticationError("the management API is disabled: ENGRAM_ADMIN_TOKEN is not set")
    given = credentials.credentials if credentials else ""
    if not hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8")):
        raise AuthenticationError("missing or invalid admin token")


EngineDep = Annotated[Engine, Depends(get_engine)]
AdminAuth = Depends(require_admin)
