"""The ``settings`` table: one JSON document per namespace (``memory``, ``qdrant``)."""

from __future__ import annotations

from .database import Database

__all__ = ["SettingsDocumentsRepository"]


class SettingsDocumentsRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def load(self, namespace: str) -> str | None:
        value = self.db.scalar("SELECT value FROM settings WHERE namespace = ?", (namespace,))
        return None if value is None else str(value)

    def save(self, namespace: str, value: str, now_ms: int) -> None:
        self.db.execute(
            "INSERT INTO settings (namespace, value, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (namespace) DO UPDATE SET value = excluded.value,"
            " updated_at = excluded.updated_at",
            (namespace, value, now_ms),
        )
