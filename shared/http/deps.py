"""Dependencies every router uses: the engine, the configuration, management auth.

Routes take these as ``Annotated`` aliases and never read ``app.state`` themselves.
"""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from engram import AuthenticationError, Config, Engine

__all__ = ["AdminAuth", "ConfigDep", "EngineDep", "get_config", "get_engine", "require_admin"]

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="AdminToken",
    description="The management API's token (ENGRAM_ADMIN_TOKEN)",
)


# The dependencies are coroutines: FastAPI runs a plain function in its thread pool, a
# hop per dependency per request, for what is here an attribute read or a comparison.


async def get_engine(request: Request) -> Engine:
    """The app's engine; the first request builds it, off the event loop."""
    engine: Engine = await ready(request.app.state.engine)
    return engine


async def ready(lazy: Any) -> Any:
    """What ``lazy`` (an ``app.Lazy``) builds: at once when built, else in the thread pool."""
    return lazy() if lazy.ready else await run_in_threadpool(lazy)


async def get_config(request: Request) -> Config:
    config: Config = request.app.state.config
    return config


async def require_admin(
    config: Annotated[Config, Depends(get_config)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """``Authorization: Bearer <ENGRAM_ADMIN_TOKEN>``, compared in constant time."""
    expected = config.admin_token.get_secret_value() if config.admin_token else ""
    if not expected:
        raise AuthenticationError("the management API is disabled: ENGRAM_ADMIN_TOKEN is not set")
    given = credentials.credentials if credentials else ""
    if not hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8")):
        raise AuthenticationError("missing or invalid admin token")


EngineDep = Annotated[Engine, Depends(get_engine)]
ConfigDep = Annotated[Config, Depends(get_config)]
AdminAuth = Depends(require_admin)
