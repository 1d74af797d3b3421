"""Authentication of chat requests with an Engram API key.

The key comes as ``Authorization: Bearer <key>`` (what OpenAI clients send), or as
``X-Engram-Api-Key: <key>`` where ``Authorization`` carries something else: the
streamed chat's Function URL takes IAM auth, whose SigV4 signature is the
``Authorization`` header (docs/deployment.md shows a client doing both).

Verified keys are cached for a short while, so a chat keeps working through a
brief storage outage (memory must never be why a chat fails); a revoked key
stops working within ``KEY_CACHE_TTL_S`` everywhere, at once in this process.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Annotated

from cachetools import TTLCache
from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from engram import AuthenticationError
from engram.domain.models import ApiKey

from .deps import get_engine

__all__ = ["KEY_CACHE_TTL_S", "KEY_HEADER", "ApiKeyDep", "forget_key", "require_api_key"]

KEY_CACHE_TTL_S = 30
_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="ApiKey",
    description="An Engram API key (POST /api/keys): the chat proxy's credential",
)
KEY_HEADER = "X-Engram-Api-Key"
_header = APIKeyHeader(
    name=KEY_HEADER,
    auto_error=False,
    scheme_name="EngramKeyHeader",
    description=(
        "An Engram API key in a header of its own, where Authorization carries something "
        "else (a SigV4 signature for the streamed chat's Function URL)"
    ),
)
_cache: TTLCache[str, ApiKey] = TTLCache(maxsize=10_000, ttl=KEY_CACHE_TTL_S)
_lock = threading.Lock()


def _fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def forget_key(key_id: str) -> None:
    with _lock:
        for fingerprint in [f for f, key in _cache.items() if key.id == key_id]:
            del _cache[fingerprint]


async def require_api_key(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header_key: Annotated[str | None, Depends(_header)],
) -> ApiKey:
    # A coroutine: a cached key is answered on the event loop; storage is read in the
    # thread pool.
    secret = header_key or (credentials.credentials if credentials else "")
    if not secret:
        raise AuthenticationError(
            f"missing API key: send 'Authorization: Bearer <key>' or '{KEY_HEADER}: <key>'"
        )
    fingerprint = _fingerprint(secret)
    with _lock:
        cached = _cache.get(fingerprint)
    if cached is not None:
        return cached
    engine = await get_engine(request)
    key = await run_in_threadpool(engine.keys.authenticate, secret)
    if key is None:
        raise AuthenticationError("invalid or revoked API key")
    with _lock:
        _cache[fingerprint] = key
    return key


ApiKeyDep = Annotated[ApiKey, Depends(require_api_key)]
