"""Per-owner write versions: how the in-memory vector indexes of every process catch up.

Every write to an owner's memories bumps the owner's version in the same
transaction and stamps the rows it wrote; a deletion leaves a tombstone. A
process whose index is behind reads only the rows and tombstones since.
"""

from __future__ import annotations

from .database import Database

__all__ = ["bump_version"]


def bump_version(db: Database, owner: str) -> int:
    """The owner's next version (call inside the write's transaction)."""
    return int(
        db.scalar(
            "INSERT INTO owner_versions (api_key_id, version) VALUES (?, 1)"
            " ON CONFLICT (api_key_id) DO UPDATE SET version = version + 1 RETURNING version",
            (owner,),
        )
    )
