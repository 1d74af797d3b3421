"""The searchable context of a memory: its neighbours in the session, and its date.

A conversational fact is often only findable through what surrounds it ("Where
did she move from?" -> "Sweden", said two turns after the question). Each memory
with a session is indexed with the content of the two memories before and after
it in that session, and every memory with the words of its date (``metadata.date``
when given, as imports of old conversations do, else its creation date), so
questions with temporal cues ("in May 2023") find it. On LoCoMo this took keyword
recall@10 from 0.589 to 0.767 (see docs/retrieval.md).

Neighbours are taken from the memory's own stream: stored conversation turns
(``metadata.kind`` "turn") neighbour turns, everything else neighbours everything
else. The facts learnt from a turn are written into its session beside it; counted
as neighbours they pushed the conversation out of the turns' contexts (LoCoMo through
the proxy: R@10 0.787 with them, 0.801 with streams; docs/retrieval.md section 5).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from engram.adapters.libsql.database import Database, Row
from engram.adapters.libsql.sql import owner_sql
from engram.domain.models import OwnerFilter
from engram.domain.models.common import from_millis
from engram.domain.terms import subject_words

__all__ = [
    "STREAM_SQL",
    "WINDOW",
    "date_words",
    "is_turn",
    "refresh_contexts",
    "refresh_session",
    "refresh_sessions",
]

WINDOW = 2  # neighbours on each side
# The stream a row is in, in SQL (1: a stored turn), as is_turn says it in Python.
STREAM_SQL = "(json_extract(metadata, '$.kind') IS 'turn')"


def is_turn(metadata: dict[str, Any]) -> bool:
    return metadata.get("kind") == "turn"


def date_words(metadata: dict[str, Any], created_ms: int) -> str:
    """The words of a memory's date, and of the kind of thing it is about when extraction
    knows it ("use Django" is found by "which backend framework")."""
    words = subject_words(metadata.get("subject"))
    about = f" {words}"[:100] if words else ""
    date = metadata.get("date")
    if isinstance(date, str) and date.strip():
        return date.strip()[:100] + about
    moment: datetime = from_millis(created_ms)
    return f"{moment.day} {moment:%B %Y}{about}"


def _window(
    db: Database, owner: str, session: str, created: int, seq: int, turns: bool
) -> list[Row]:
    """The memories of one stream around (created, seq) in the session, in order:
    2*WINDOW each side."""
    columns = "seq, content, metadata, created_at, context"
    where, params = owner_sql(OwnerFilter((owner,), session), alias="")
    where = f"{where} AND {STREAM_SQL} = ?"
    # Both sides in one batch: one round trip to a server.
    before, after = db.query_batch(
        [
            (
                f"SELECT {columns} FROM memories WHERE {where}"
                " AND (created_at, seq) < (?, ?) ORDER BY created_at DESC, seq DESC LIMIT ?",
                (*params, int(turns), created, seq, 2 * WINDOW),
            ),
            (
                f"SELECT {columns} FROM memories WHERE {where}"
                " AND (created_at, seq) >= (?, ?) ORDER BY created_at, seq LIMIT ?",
                (*params, int(turns), created, seq, 2 * WINDOW + 1),
            ),
        ]
    )
    return [*reversed(before), *after]


def _changed(rows: list[Row], indexes: range) -> list[tuple[int, str]]:
    """(seq, context) for each ``rows[i]``, i in ``indexes``, whose context changes."""
    changed = []
    for i in indexes:
        neighbours = [
            rows[j]["content"]
            for j in range(i - WINDOW, i + WINDOW + 1)
            if j != i and 0 <= j < len(rows)
        ]
        row = rows[i]
        date = date_words(json.loads(row["metadata"]), row["created_at"])
        context = " ".join([*neighbours, date])
        if context != row["context"]:
            changed.append((int(row["seq"]), context))
    return changed


def _write(db: Database, changes: list[tuple[str, int, str]]) -> None:
    """(owner, seq, context) written in one statement batch: one round trip to a server,
    however many rows change. Each is stamped with its owner's version (bumped by the
    write that called this) so every process's in-memory keyword postings re-read it."""
    if not changes:
        return
    where, _ = owner_sql("", alias="")
    db.executemany(
        "UPDATE memories SET context = ?, version = (SELECT version FROM owner_versions"
        f" WHERE api_key_id = ?) WHERE seq = ? AND {where}",
        [(context, owner, seq, *owner_sql(owner, alias="")[1]) for owner, seq, context in changes],
    )


def _session_rows(owner: str, session: str) -> tuple[str, tuple[object, ...]]:
    where, params = owner_sql(OwnerFilter((owner,), session), alias="")
    return (
        f"SELECT seq, content, metadata, created_at, context, {STREAM_SQL} AS turn"
        f" FROM memories WHERE {where} ORDER BY created_at, seq",
        tuple(params),
    )


def refresh_sessions(db: Database, sessions: list[tuple[str, str]]) -> None:
    """Recompute every context of each (owner, session): all of them read in one batch,
    the changes written in another (a batch import, a removal of many memories)."""
    if not sessions:
        return
    found = db.query_batch([_session_rows(owner, session) for owner, session in sessions])
    changes = []
    for (owner, _), rows in zip(sessions, found, strict=True):
        for turns in (True, False):
            stream = [r for r in rows if bool(r["turn"]) is turns]
            changes += [(owner, seq, c) for seq, c in _changed(stream, range(len(stream)))]
    _write(db, changes)


def refresh_session(db: Database, owner: str, session: str) -> None:
    """Recompute every context of one session (after removing many of its memories)."""
    refresh_sessions(db, [(owner, session)])


def refresh_contexts(
    db: Database,
    owner: str,
    session: str | None,
    created: int,
    seq: int,
    turns: bool | None = None,
) -> None:
    """Recompute the contexts around position (created, seq) of ``session``, in the
    stream of turns (``turns``), of the other memories, or (None: a row whose stream
    changed or is not known) in both.

    Called after a memory is inserted there, removed from there, or its content
    changed; only rows whose context actually changes are written.
    """
    if session is None:
        return
    changes = []
    for stream in (True, False) if turns is None else (turns,):
        rows = _window(db, owner, session, created, seq, stream)
        centre = next(
            (i for i, r in enumerate(rows) if (r["created_at"], r["seq"]) >= (created, seq)),
            len(rows),
        )
        around = range(max(0, centre - WINDOW), min(len(rows), centre + WINDOW + 1))
        changes += [(owner, s, c) for s, c in _changed(rows, around)]
    _write(db, changes)
