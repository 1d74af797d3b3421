"""API keys for the chat proxy (create, list, revoke, authenticate)."""

from __future__ import annotations

from collections.abc import Callable

from engram.domain.models import ApiKey, ApiKeyCreate, ApiKeyCreated
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
