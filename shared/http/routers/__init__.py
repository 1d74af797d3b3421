"""One router per resource. ``ORDER`` is the order they are mounted in: routes with
fixed paths under ``/api/memory`` must come before ``/api/memory/{id}``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import bulk, chat, keys, memory, preview, qdrant, settings, status, vectors

if TYPE_CHECKING:
    from fastapi import APIRouter

__all__ = ["ORDER", "ROUTERS"]

ROUTERS: dict[str, APIRouter] = {
    "status": status.router,
    "vectors": vectors.router,
    "bulk": bulk.router,
    "preview": preview.router,
    "memory": memory.router,
    "settings": settings.router,
    "keys": keys.router,
    "qdrant": qdrant.router,
    "chat": chat.router,
}
ORDER = tuple(ROUTERS)
