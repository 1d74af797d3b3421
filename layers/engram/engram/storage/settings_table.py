"""The ``settings`` table: one JSON document per namespace (``memory``, ``qdrant``)."""

from __future__ import annotations

from .database import Database

__all__ = ["load_settings", "save_settings"]


def load_settings(db: Database, namespace: str) -> str | None:
    value = db.scalar("SELECT value FROM settings WHERE namespace = ?", (namespace,))
    return None if value is None else str(value)


def save_settings(db: Database, namespace: str, value: str, now_ms: int) -> None:
    db.execute(
        "INSERT INTO settings (namespace, value, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (namespace) DO UPDATE SET value = excluded.value,"
        " updated_at = excluded.updated_at",
        (namespace, value, now_ms),
    )
