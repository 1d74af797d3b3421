"""The ``extractor_usage`` table: what the LLM extractor spent per key and day (the
``ExtractorUsage`` port). The owner is a condition of every statement."""

from __future__ import annotations

from engram.adapters.libsql.database import Database

__all__ = ["ExtractorUsageRepository"]


class ExtractorUsageRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def spent(self, owner: str, day: str) -> int:
        row = self.db.query_one(
            "SELECT tokens FROM extractor_usage WHERE api_key_id = ? AND day = ?", (owner, day)
        )
        return int(row["tokens"]) if row is not None else 0

    def add(self, owner: str, day: str, tokens: int) -> None:
        self.db.execute(
            "INSERT INTO extractor_usage (api_key_id, day, tokens, calls) VALUES (?, ?, ?, 1)"
            " ON CONFLICT (api_key_id, day) DO UPDATE SET"
            " tokens = tokens + excluded.tokens, calls = calls + 1",
            (owner, day, max(0, tokens)),
        )
