"""The ``settings`` table: one JSON document per namespace (``memory``, ``qdrant``),
its credentials sealed (``adapters/sealing.py``): the use cases read and write them
plain, the table never holds one."""

from __future__ import annotations

import json
from collections.abc import Callable

from engram.adapters.libsql.database import Database
from engram.adapters.sealing import Sealer
from engram.domain.models.settings import map_credentials

__all__ = ["SettingsDocumentsRepository"]


class SettingsDocumentsRepository:
    def __init__(self, db: Database, sealer: Sealer) -> None:
        self.db = db
        self.sealer = sealer

    def load(self, namespace: str) -> str | None:
        value = self.db.scalar("SELECT value FROM settings WHERE namespace = ?", (namespace,))
        if value is None:
            return None
        return self._through(namespace, str(value), self.sealer.open)

    def save(self, namespace: str, value: str, now_ms: int) -> None:
        sealed = self._through(namespace, value, self.sealer.seal)
        self.db.execute(
            "INSERT INTO settings (namespace, value, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (namespace) DO UPDATE SET value = excluded.value,"
            " updated_at = excluded.updated_at",
            (namespace, sealed, now_ms),
        )

    @staticmethod
    def _through(namespace: str, text: str, change: Callable[[str], str]) -> str:
        try:
            document = json.loads(text)
        except ValueError:
            return text  # not JSON: the use case says it is unreadable, as before
        if not isinstance(document, dict):
            return text
        return json.dumps(map_credentials(namespace, document, change))
