"""SQL fragments every libSQL repository shares: columns, the owner and liveness
conditions, and rows turned into models. The owner condition is rendered here
and nowhere else."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, overload

from engram.adapters.libsql.database import Row
from engram.domain.models import Memory, MemoryType, OwnerFilter
from engram.domain.models.common import from_millis
from engram.domain.models.trusted import trusted

__all__ = [
    "COLUMNS",
    "LazyMemories",
    "dumps",
    "fts_owner_prefix",
    "live",
    "owner_sql",
    "row_to_memory",
]

COLUMNS = (
    "m.seq, m.id, m.api_key_id, m.session_id, m.type, m.key, m.content, m.metadata,"
    " m.created_at, m.updated_at, m.expires_at"
)


def owner_sql(
    who: OwnerFilter | str | None, *, indexed: bool = True, alias: str = "m"
) -> tuple[str, list[Any]]:
    """The owner condition: one owner, an ``OwnerFilter``, or every owner (``None``, the
    management API's explicit choice: the condition is then always true).

    ``indexed=False`` prefixes the columns with SQLite's unary ``+``, which keeps the
    planner from choosing an owner index for this condition (for lookups by id, where
    the id index is the right one).
    """
    if who is None:
        return "1", []
    plus = "" if indexed else "+"
    column = f"{plus}{alias}." if alias else plus
    if isinstance(who, str):
        return f"{column}api_key_id = ?", [who]
    marks = ",".join("?" for _ in who.owners)
    clause = f"{column}api_key_id IN ({marks})"
    params: list[Any] = list(who.owners)
    if who.session_id is not None:
        clause += f" AND {column}session_id = ?"
        params.append(who.session_id)
    return clause, params


def fts_owner_prefix(who: OwnerFilter) -> str:
    """A MATCH prefix restricting FTS5 to these owners' rows (see ``owner_token`` in the
    schema); the exact ``api_key_id`` condition still decides isolation."""
    tokens = " OR ".join(f'"o{owner.encode("utf-8").hex()}0"' for owner in who.owners)
    return f"owner_token : ({tokens}) AND "


def live(now_ms: int, alias: str = "m") -> tuple[str, list[Any]]:
    prefix = f"{alias}." if alias else ""
    return f"({prefix}expires_at IS NULL OR {prefix}expires_at > ?)", [now_ms]


def row_to_memory(row: Row) -> Memory:
    # Rows were validated on the way in (models, CHECK constraints): constructing skips
    # re-validating them on every read, which retrieval does for each candidate.
    return trusted(
        Memory,
        {
            "id": row["id"],
            "api_key_id": row["api_key_id"],
            "session_id": row["session_id"],
            "type": MemoryType(row["type"]),
            "key": row["key"],
            "content": row["content"],
            "metadata": json.loads(row["metadata"]),
            "created_at": from_millis(row["created_at"]),
            "updated_at": from_millis(row["updated_at"]),
            "expires_at": None if row["expires_at"] is None else from_millis(row["expires_at"]),
        },
    )


class LazyMemories(Sequence[Memory]):
    """Rows made memories on first use: read-ahead that most rankings never look at
    costs its conversion only when one does. Given a reader instead of rows, the
    statement itself waits for first use (a local file has no round trip to save)."""

    def __init__(self, rows: list[Row] | Callable[[], list[Row]]) -> None:
        self._rows = rows
        self._memories: list[Memory] | None = None

    def _read(self) -> list[Row]:
        if callable(self._rows):
            self._rows = self._rows()
        return self._rows

    def _all(self) -> list[Memory]:
        if self._memories is None:
            self._memories = [row_to_memory(r) for r in self._read()]
        return self._memories

    @overload
    def __getitem__(self, index: int) -> Memory: ...

    @overload
    def __getitem__(self, index: slice) -> list[Memory]: ...

    def __getitem__(self, index: int | slice) -> Memory | list[Memory]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._read())


def dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
