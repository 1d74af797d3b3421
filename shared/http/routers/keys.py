"""API keys of the chat proxy. The secret is returned once, at creation."""

from __future__ import annotations

from fastapi import APIRouter

from engram import NotFoundError
from engram.domain.models import (
    ApiKey,
    ApiKeyCreate,
    ApiKeyCreated,
    ApiKeysRestored,
    ApiKeyTransfer,
)

from ..chat_auth import forget_key
from ..deps import AdminAuth, EngineDep
from ..schemas import MANAGEMENT_ERRORS, errors

router = APIRouter(
    prefix="/api/keys", tags=["keys"], dependencies=[AdminAuth], responses=MANAGEMENT_ERRORS
)


@router.post(
    "",
    status_code=201,
    response_model=ApiKeyCreated,
    responses={
        201: {
            "links": {
                "RevokeKey": {
                    "operationId": "revokeKey",
                    "parameters": {"key_id": "$response.body#/id"},
                }
            }
        }
    },
)
def create_key(body: ApiKeyCreate, engine: EngineDep) -> ApiKeyCreated:
    return engine.keys.create(body)


@router.get("", response_model=list[ApiKey])
def list_keys(engine: EngineDep) -> list[ApiKey]:
    return engine.keys.all()


@router.get("/export", response_model=ApiKeyTransfer)
def export_keys(engine: EngineDep) -> ApiKeyTransfer:
    """Every key with the SHA-256 of its secret, never the secret: with the memories'
    export, what moves a user to another instance (POST /api/keys/import there)."""
    return engine.keys.export()


@router.post("/import", response_model=ApiKeysRestored)
def import_keys(body: ApiKeyTransfer, engine: EngineDep) -> ApiKeysRestored:
    """Add the keys another instance exported: their secrets then work here. A key whose
    id, or whose secret, is already here is left alone and listed as a conflict."""
    return engine.keys.restore(body)


@router.delete("/{key_id}", response_model=ApiKey, responses=errors(404), operation_id="revokeKey")
def revoke_key(key_id: str, engine: EngineDep) -> ApiKey:
    """Revoke (idempotent): the key stops authenticating; its memories stay."""
    key = engine.keys.revoke(key_id)
    forget_key(key_id)
    if key is None:
        raise NotFoundError(f"no API key with id {key_id}", field="id")
    return key
