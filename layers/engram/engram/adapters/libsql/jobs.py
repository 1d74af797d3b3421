"""The ``processed_jobs`` table: queue jobs already done (the ``JobLedger`` port)."""

from __future__ import annotations

from engram.adapters.libsql.database import Database

__all__ = ["JobLedgerRepository"]


class JobLedgerRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def seen(self, job_id: str) -> bool:
        return (
            self.db.query_one("SELECT 1 FROM processed_jobs WHERE job_id = ?", (job_id,))
            is not None
        )

    def mark(self, job_id: str, kind: str, now_ms: int) -> None:
        self.db.execute(
            "INSERT INTO processed_jobs (job_id, kind, processed_at) VALUES (?, ?, ?)",
            (job_id, kind, now_ms),
        )
