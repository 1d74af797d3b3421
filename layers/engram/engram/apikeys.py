"""API keys for the chat proxy (create, list, revoke, authenticate)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from .models import ApiKey, ApiKeyCreate, ApiKeyCreated
from .models.common import to_millis
from .storage.apikeys import ApiKeyRepository

__all__ = ["ApiKeyService"]


class ApiKeyService:
    def __init__(self, repo: ApiKeyRepository, clock: Callable[[], datetime]) -> None:
        self.repo = repo
        self.clock = clock

    def create(self, request: ApiKeyCreate) -> ApiKeyCreated:
        return self.repo.create(request.name, to_millis(self.clock()))

    def all(self) -> list[ApiKey]:
        return self.repo.all()

    def get(self, key_id: str) -> ApiKey | None:
        return self.repo.get(key_id)

    def revoke(self, key_id: str) -> ApiKey | None:
        """The key, now revoked (idempotent), or None when no such key exists."""
        return self.repo.revoke(key_id, to_millis(self.clock()))

    def authenticate(self, secret: str) -> ApiKey | None:
        return self.repo.authenticate(secret, to_millis(self.clock()))
