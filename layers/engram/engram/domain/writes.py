"""A write as every backend receives it: a key derived when none is given, secrets
redacted from its content, key and metadata, and refused when already expired."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import TypeVar

from engram.domain.errors import InvalidInputError
from engram.domain.models import MemoryCreate, MemoryUpdate
from engram.domain.models.common import to_millis
from engram.domain.redaction import redact, redact_value

__all__ = ["Write", "derive_key", "not_expired", "prepare_write", "redacted"]


def derive_key(content: str) -> str:
    """The upsert key of a memory given without one: identical content, one memory."""
    return "memory:" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]


def not_expired(expires_at: datetime | None, now_ms: int) -> None:
    """A memory written already expired would be stored and never seen: refuse it."""
    if expires_at is not None and to_millis(expires_at) <= now_ms:
        raise InvalidInputError("expiresAt is in the past", field="expiresAt")


Write = TypeVar("Write", MemoryCreate, MemoryUpdate)


def redacted(item: Write) -> Write:
    """``item`` with every secret-shaped value in its content, key and metadata replaced."""
    changes: dict[str, object] = {}
    if item.content is not None and (clean := redact(item.content)) != item.content:
        changes["content"] = clean
    if item.key is not None and (clean_key := redact(item.key)) != item.key:
        changes["key"] = clean_key
    if item.metadata:
        clean_meta = redact_value(item.metadata)
        if clean_meta != item.metadata:
            changes["metadata"] = clean_meta
    return item.model_copy(update=changes) if changes else item


def prepare_write(item: Write, now_ms: int) -> Write:
    """A write as every backend receives it: secrets redacted, not already expired."""
    item = redacted(item)
    not_expired(item.expires_at, now_ms)
    return item
