"""API keys for the chat proxy (create, list, revoke, authenticate)."""

from __future__ import annotations

from collections.abc import Callable

from engram.domain.models import (
    ApiKey,
    ApiKeyCreate,
    ApiKeyCreated,
    ApiKeysRestored,
    ApiKeyTransfer,
)
from engram.ports import ApiKeyStore

__all__ = ["ApiKeyService"]


class ApiKeyService:
    def __init__(self, store: ApiKeyStore, now_ms: Callable[[], int]) -> None:
        self.store = store
        self.now_ms = now_ms

    def create(self, request: ApiKeyCreate) -> ApiKeyCreated:
        return self.store.create(request.name, self.now_ms())

    def all(self) -> list[ApiKey]:
        return self.store.all()

    def get(self, key_id: str) -> ApiKey | None:
        return self.store.get(key_id)

    def revoke(self, key_id: str) -> ApiKey | None:
        """The key, now revoked (idempotent), or None when no such key exists."""
        return self.store.revoke(key_id, self.now_ms())

    def authenticate(self, secret: str) -> ApiKey | None:
        return self.store.authenticate(secret, self.now_ms())

    def export(self) -> ApiKeyTransfer:
        """Every key with the hash of its secret (never the secret): for another instance."""
        return ApiKeyTransfer(keys=self.store.records())

    def restore(self, transfer: ApiKeyTransfer) -> ApiKeysRestored:
        """Add the keys of another instance; the same secrets then work here."""
        done: dict[str, list[str]] = {"created": [], "unchanged": [], "revoked": [], "conflict": []}
        for record in transfer.keys:
            done[self.store.restore(record)].append(record.id)
        return ApiKeysRestored(
            created=done["created"],
            unchanged=done["unchanged"],
            revoked=done["revoked"],
            conflicts=done["conflict"],
        )
