"""Row shapes and SQL fragments shared by the repositories."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..models import Memory, MemoryType
from ..models.common import from_millis
from .database import Row

__all__ = ["COLUMNS", "OwnerFilter", "dumps", "live", "row_to_memory"]

COLUMNS = (
    "m.seq, m.id, m.api_key_id, m.session_id, m.type, m.key, m.content, m.metadata,"
    " m.created_at, m.updated_at, m.expires_at"
)


@dataclass(frozen=True)
class OwnerFilter:
    """Whose memories a read may see: one or more owners, optionally one session."""

    owners: tuple[str, ...]
    session_id: str | None = None

    def sql(self, indexed: bool = True) -> tuple[str, list[Any]]:
        """The owner condition. ``indexed=False`` prefixes the columns with SQLite's unary
        ``+``, which keeps the planner from choosing an owner index for this condition
        (for lookups by id, where the id index is the right one)."""
        plus = "" if indexed else "+"
        marks = ",".join("?" for _ in self.owners)
        clause = f"{plus}m.api_key_id IN ({marks})"
        params: list[Any] = list(self.owners)
        if self.session_id is not None:
            clause += f" AND {plus}m.session_id = ?"
            params.append(self.session_id)
        return clause, params

    def fts_prefix(self) -> str:
        """A MATCH prefix restricting FTS5 to these owners' rows (see ``owner_token``)."""
        tokens = " OR ".join(f'"o{owner.encode("utf-8").hex()}0"' for owner in self.owners)
        return f"owner_token : ({tokens}) AND "


def live(now_ms: int) -> tuple[str, list[Any]]:
    return "(m.expires_at IS NULL OR m.expires_at > ?)", [now_ms]


def row_to_memory(row: Row) -> Memory:
    # Rows were validated on the way in (models, CHECK constraints): constructing skips
    # re-validating them on every read, which retrieval does for each candidate.
    return Memory.model_construct(
        id=row["id"],
        api_key_id=row["api_key_id"],
        session_id=row["session_id"],
        type=MemoryType(row["type"]),
        key=row["key"],
        content=row["content"],
        metadata=json.loads(row["metadata"]),
        created_at=from_millis(row["created_at"]),
        updated_at=from_millis(row["updated_at"]),
        expires_at=None if row["expires_at"] is None else from_millis(row["expires_at"]),
    )


def dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
