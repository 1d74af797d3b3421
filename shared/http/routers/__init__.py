"""One router per resource. ``ORDER`` is the order they are mounted in: routes with
fixed paths under ``/api/memory`` must come before ``/api/memory/{id}``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import bulk, chat, keys, memory, preview, qdrant, settings, status, studio, vectors

if TYPE_CHECKING:
    from fastapi import APIRouter

__all__ = ["OPTIONAL", "ORDER", "ROUTERS", "load"]

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
    "studio": studio.router,
}
# Imported only by an app that serves them: ``mcp`` needs the MCP SDK, which only the MCP
# function's layer holds (``load``).
OPTIONAL = ("mcp",)
ORDER = (*ROUTERS, *OPTIONAL)


def load(name: str) -> APIRouter:
    """The router called ``name``, importing an optional one on first use."""
    if name in ROUTERS:
        return ROUTERS[name]
    if name == "mcp":
        from .mcp import router

        return router
    raise ValueError(f"unknown router: {name}")
