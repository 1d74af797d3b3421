"""Queries of summarization and cleanup (the ``MaintenanceStore`` port)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engram.adapters.libsql.database import Database
from engram.adapters.libsql.sql import COLUMNS, owner_sql, row_to_memory
from engram.domain.models import GLOBAL_OWNER, Memory, OwnerFilter

__all__ = ["MaintenanceRepository"]

_EXPIRED = "expires_at IS NOT NULL AND expires_at <= ?"
# Global memories are curated by an operator: retention never removes them.
_STALE = "updated_at < ? AND api_key_id != ?"


class MaintenanceRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def newest_first(self, owner: str, session_id: str | None) -> list[Memory]:
        where, params = owner_sql(OwnerFilter((owner,), session_id))
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM memories m WHERE {where}"
            " ORDER BY m.updated_at DESC, m.seq DESC",
            params,
        )
        return [row_to_memory(r) for r in rows]

    def older_than(self, cutoff_ms: int, owner: str | None) -> list[Memory]:
        """Memories last written before the cut-off (retention's clock), summaries aside,
        oldest first per owner."""
        where, params = owner_sql(owner)
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM memories m WHERE m.updated_at < ?"
            f" AND m.key NOT LIKE 'summary:%' AND {where}"
            " ORDER BY m.api_key_id, m.updated_at, m.seq",
            [cutoff_ms, *params],
        )
        return [row_to_memory(r) for r in rows]

    def cleanup_counts(self, now_ms: int, retention_ms: int, old_ms: int) -> dict[str, int]:
        def count(sql: str, params: tuple[Any, ...]) -> int:
            return int(self.db.scalar(sql, params))

        return {
            "expired": count(f"SELECT count(*) FROM memories WHERE {_EXPIRED}", (now_ms,)),
            "past_retention": count(
                f"SELECT count(*) FROM memories WHERE {_STALE} AND NOT ({_EXPIRED})",
                (retention_ms, GLOBAL_OWNER, now_ms),
            ),
            "tombstones": count(
                "SELECT count(*) FROM memory_tombstones WHERE deleted_at < ?", (old_ms,)
            ),
            "processed_jobs": count(
                "SELECT count(*) FROM processed_jobs WHERE processed_at < ?", (old_ms,)
            ),
        }

    def removable(self, now_ms: int, retention_ms: int) -> list[tuple[str, str]]:
        rows = self.db.query(
            f"SELECT id, api_key_id FROM memories WHERE ({_EXPIRED}) OR ({_STALE})",
            (now_ms, retention_ms, GLOBAL_OWNER),
        )
        return [(str(r["id"]), str(r["api_key_id"])) for r in rows]

    def purge_bookkeeping(self, old_ms: int) -> None:
        self.db.execute("DELETE FROM processed_jobs WHERE processed_at < ?", (old_ms,))
        self.db.execute("DELETE FROM memory_tombstones WHERE deleted_at < ?", (old_ms,))
        # Days are ISO dates, so they compare as text: keep the ones after the cutoff.
        cutoff_day = datetime.fromtimestamp(old_ms / 1000, UTC).date().isoformat()
        self.db.execute("DELETE FROM extractor_usage WHERE day < ?", (cutoff_day,))
