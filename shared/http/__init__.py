"""The HTTP surface: app factory, routers, errors, auth."""

from .app import create_app
from .routers import ORDER

__all__ = ["ORDER", "create_app"]
