"""Queries of summarization and cleanup (the storage side of ``engram.summarization``)."""

from __future__ import annotations

from typing import Any

from .database import Database, Row

__all__ = ["MaintenanceRepository"]

_EXPIRED = "expires_at IS NOT NULL AND expires_at <= ?"
# Global memories are curated by an operator: retention never removes them.
_STALE = "updated_at < ? AND api_key_id != '*'"


class MaintenanceRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def newest_first(self, owner: str, session_id: str | None) -> list[Row]:
        where, params = "api_key_id = ?", [owner]
        if session_id is not None:
            where += " AND session_id = ?"
            params.append(session_id)
        return self.db.query(
            f"SELECT id, content FROM memories WHERE {where} ORDER BY created_at DESC, seq DESC",
            params,
        )

    def older_than(self, cutoff_ms: int, owner: str | None) -> list[Row]:
        """Memories created before the cut-off, summaries aside, oldest first per owner."""
        where = "created_at < ? AND key NOT LIKE 'summary:%'"
        params: list[Any] = [cutoff_ms]
        if owner is not None:
            where += " AND api_key_id = ?"
            params.append(owner)
        return self.db.query(
            "SELECT seq, id, api_key_id, type, content FROM memories"
            f" WHERE {where} ORDER BY api_key_id, created_at, seq",
            params,
        )

    def cleanup_counts(self, now_ms: int, retention_ms: int, old_ms: int) -> dict[str, int]:
        def count(sql: str, params: tuple[Any, ...]) -> int:
            return int(self.db.scalar(sql, params))

        return {
            "expired": count(f"SELECT count(*) FROM memories WHERE {_EXPIRED}", (now_ms,)),
            "past_retention": count(
                f"SELECT count(*) FROM memories WHERE {_STALE} AND NOT ({_EXPIRED})",
                (retention_ms, now_ms),
            ),
            "tombstones": count(
                "SELECT count(*) FROM memory_tombstones WHERE deleted_at < ?", (old_ms,)
            ),
            "processed_jobs": count(
                "SELECT count(*) FROM processed_jobs WHERE processed_at < ?", (old_ms,)
            ),
        }

    def removable(self, now_ms: int, retention_ms: int) -> list[Row]:
        return self.db.query(
            f"SELECT id, api_key_id FROM memories WHERE ({_EXPIRED}) OR ({_STALE})",
            (now_ms, retention_ms),
        )

    def purge_bookkeeping(self, old_ms: int) -> None:
        self.db.execute("DELETE FROM processed_jobs WHERE processed_at < ?", (old_ms,))
        self.db.execute("DELETE FROM memory_tombstones WHERE deleted_at < ?", (old_ms,))
