"""The ``retrieval_stats`` table: retrievals and hits per owner (the hit rate)."""

from __future__ import annotations

from .database import Database

__all__ = ["RetrievalStatsRepository"]


class RetrievalStatsRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def record(self, owner: str, hit: bool, now_ms: int) -> None:
        # Deferred: a chat's retrieval should not wait a round trip for its own counter.
        self.db.execute_deferred(
            "INSERT INTO retrieval_stats (api_key_id, retrievals, hits, updated_at)"
            " VALUES (?, 1, ?, ?) ON CONFLICT (api_key_id) DO UPDATE SET"
            " retrievals = retrievals + 1, hits = hits + excluded.hits,"
            " updated_at = excluded.updated_at",
            (owner, int(hit), now_ms),
        )

    def counts(self, owner: str | None) -> tuple[int, int]:
        if owner is None:
            row = self.db.query_one(
                "SELECT coalesce(sum(retrievals), 0) AS r, coalesce(sum(hits), 0) AS h"
                " FROM retrieval_stats"
            )
        else:
            row = self.db.query_one(
                "SELECT retrievals AS r, hits AS h FROM retrieval_stats WHERE api_key_id = ?",
                (owner,),
            )
        return (0, 0) if row is None else (int(row["r"]), int(row["h"]))
