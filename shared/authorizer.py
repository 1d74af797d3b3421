"""The HTTP API's Lambda authorizer: a first gate in front of every authenticated route.

API Gateway asks it about a request's ``Authorization`` header before any function
runs; a request without the header is refused by API Gateway itself (401), without
invoking anything. The gate lets through the admin token and any active API key, and
its answer is cached per credential (the template's ``ReauthorizeEvery``), so a chat
pays for it once every few minutes, not once per request.

It is not the authority: every function still checks the credential its route needs
(the admin token for ``/api``, an API key for the chat and MCP) on every request, so a
revoked key stops at the functions within their own 30 s key cache
(``shared/http/chat_auth.py``), whatever the gate cached for it (up to 5 minutes). What the
gate adds is that a caller without a credential never holds an instance of a function
with database connections, nor wakes one from cold.

Its start is small: the configuration with the secrets it needs (the database's token
and the admin token) and a connection for the API keys, no engine.
"""

from __future__ import annotations

import hmac
import threading
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from engram import Config
from engram.app.apikeys import ApiKeyService
from engram.domain.errors import log_safe
from engram.wiring import open_keys

from .observability import logger
from .secrets import load_runtime_config

__all__ = ["authorizer_handler"]

_BEARER = "bearer "


def _credential(event: dict[str, Any]) -> str:
    headers = {str(k).lower(): v for k, v in (event.get("headers") or {}).items()}
    value = str(headers.get("authorization") or "")
    return value[len(_BEARER) :].strip() if value.lower().startswith(_BEARER) else ""


def authorizer_handler(
    load_config: Callable[[], Config] = load_runtime_config,
    open_key_store: Callable[[Config], ApiKeyService] = open_keys,
) -> Callable[[dict[str, Any], LambdaContext], dict[str, bool]]:
    """A Lambda handler for an HTTP API authorizer (payload 2.0, simple responses)."""
    state: dict[str, Any] = {}
    lock = threading.Lock()

    def _started() -> tuple[Config, ApiKeyService]:
        with lock:
            if not state:
                config = load_config()
                state.update(config=config, keys=open_key_store(config))
            return state["config"], state["keys"]

    def _allowed(secret: str) -> bool:
        config, keys = _started()
        admin = config.admin_token.get_secret_value() if config.admin_token else ""
        if admin and hmac.compare_digest(secret.encode(), admin.encode()):
            return True
        return keys.authenticate(secret) is not None

    @logger.inject_lambda_context
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, bool]:
        secret = _credential(event)
        if not secret:
            return {"isAuthorized": False}
        try:
            allowed = _allowed(secret)
        except Exception as exc:
            # Raised, not refused: a refusal is cached for the credential, and would lock
            # a valid key out for minutes after the database is back. API Gateway answers
            # this one request with a 500 and asks again next time.
            logger.warning("authorizer could not check a credential: %s", log_safe(exc))
            raise
        if not allowed:
            logger.info("authorizer refused a credential for %s", event.get("routeKey"))
        return {"isAuthorized": allowed}

    return handler
