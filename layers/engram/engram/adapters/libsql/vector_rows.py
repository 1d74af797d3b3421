"""Vectors beside their rows (``memories.embedding``), the ``vector_meta`` row, and the
reads that keep each process's in-memory index current (the ``VectorRows`` port)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engram.adapters.libsql.context import STREAM_SQL
from engram.adapters.libsql.database import Database, Row
from engram.adapters.libsql.encoding import decode, f8_lengths, to_f32_bytes
from engram.adapters.libsql.sql import COLUMNS, owner_sql, row_to_memory
from engram.adapters.libsql.versions import (
    bump_every_version,
    bump_version,
    owner_state,
    tombstones_since,
)
from engram.domain.models import Memory
from engram.domain.terms import SPEAKER_PREFIX_CHARS, prefix_speaker
from engram.ports import PendingVector, VectorMeta, Vectors

__all__ = ["Changes", "KeyBound", "VectorRowsRepository", "row_speaker"]


@dataclass(frozen=True)
class KeyBound:
    """How much of one key a process holds in memory: rows as float32 (its share of the
    memory bound), rows as int8 (all of it), and vector bytes as stored (what a cold
    load reads)."""

    rows: int
    compact_rows: int
    stored_bytes: int

    def holds(self, rows: int, stored_bytes: int) -> bool:
        return rows <= max(self.rows, self.compact_rows) and stored_bytes <= self.stored_bytes


@dataclass
class Changes:
    """What an index reads to catch up: its rows page by page (read as iterated), the
    seqs deleted, and the owner's row count when it was counted (a first load)."""

    pages: Iterator[list[Row]]
    dead: list[int]
    total: int | None = None


# Who said a row: metadata.speaker, or the name a transcript line ("Caroline: ...")
# opens with when metadata has none (``row_speaker``).
_SPEAKER_COLUMNS = (
    "json_extract(metadata, '$.speaker') AS speaker,"
    f" substr(content, 1, {SPEAKER_PREFIX_CHARS}) AS opening"
)
# What an in-memory vector index holds of a row ({where}: the owner and version condition).
_INDEX_ROWS = (
    "SELECT seq, id, session_id, created_at, updated_at, expires_at, embedding, version,"
    f" {STREAM_SQL} AS turn, {_SPEAKER_COLUMNS}"
    " FROM memories WHERE {where} AND version > ?"
)


def row_speaker(row: Row) -> str | None:
    """The speaker of a row read with ``_SPEAKER_COLUMNS``."""
    speaker = row["speaker"] if isinstance(row["speaker"], str) else None
    return speaker or prefix_speaker(row.get("opening"))


# A page of index rows stays far under what a server answers in one response (sqld:
# 10 MB by default; "Response is too large" past it): ~2 MB, whatever the dimension.
PAGE_BYTES = 2 * 1024 * 1024
_ROW_OVERHEAD = 400  # ids, times, speaker, a transcript line's opening


def page_rows(dim: int) -> int:
    return max(16, PAGE_BYTES // (4 * max(dim, 1) + _ROW_OVERHEAD))


def _paged(owner_clause: str) -> str:
    return _INDEX_ROWS.format(where=owner_clause) + " AND seq > ? ORDER BY seq LIMIT ?"


class VectorRowsRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- embedding bookkeeping --------------------------------------------------------------

    def pending(
        self, owner: str | None, limit: int, ids: Sequence[str] | None = None
    ) -> list[PendingVector]:
        """Memories waiting for a vector of the current signature (one owner, or all;
        only those of ``ids`` when given)."""
        owner_clause, params = owner_sql(owner, alias="")
        if ids is not None:
            if not ids:
                return []
            owner_clause += f" AND id IN ({','.join('?' for _ in ids)})"
            params = [*params, *ids]
        rows = self.db.query(
            "SELECT seq, api_key_id, content FROM memories"
            f" WHERE needs_reindex = 1 AND {owner_clause} ORDER BY seq LIMIT ?",
            [*params, limit],
        )
        return [PendingVector(int(r["seq"]), str(r["api_key_id"]), str(r["content"])) for r in rows]

    def pending_count(self, owner: str | None = None) -> int:
        owner_clause, params = owner_sql(owner, alias="")
        return int(
            self.db.scalar(
                f"SELECT count(*) FROM memories WHERE needs_reindex = 1 AND {owner_clause}", params
            )
        )

    def counts(self) -> tuple[int, int]:
        row = self.db.query_one(
            "SELECT count(*) AS n, coalesce(sum(needs_reindex), 0) AS pending FROM memories"
        )
        assert row is not None
        return int(row["n"]), int(row["pending"])

    def store(self, items: list[tuple[PendingVector, Vectors]], int8: bool) -> list[int]:
        """Store vectors; returns the seqs written.

        A row whose content changed since it was read keeps ``needs_reindex``: the
        vector of the old text is not stored over it.
        """
        encode = "vector8(?)" if int8 else "vector32(?)"
        written: list[int] = []
        with self.db.transaction():
            versions: dict[str, int] = {}
            for row, vector in items:
                if row.owner not in versions:
                    versions[row.owner] = bump_version(self.db, row.owner)
                owner_clause, params = owner_sql(row.owner, alias="")
                if self.db.execute(
                    f"UPDATE memories SET embedding = {encode}, needs_reindex = 0, version = ?"
                    f" WHERE seq = ? AND {owner_clause} AND content = ?",
                    (to_f32_bytes(vector), versions[row.owner], row.seq, *params, row.content),
                ):
                    written.append(row.seq)
        return written

    def memories(self, seqs: list[int]) -> list[tuple[int, Memory]]:
        if not seqs:
            return []
        marks = ",".join("?" for _ in seqs)
        rows = self.db.query(f"SELECT {COLUMNS} FROM memories m WHERE m.seq IN ({marks})", seqs)
        return [(int(r["seq"]), row_to_memory(r)) for r in rows]

    def embedded_after(
        self, seq: int, limit: int, dim: int
    ) -> list[tuple[int, Memory, Vectors | None]]:
        rows = self.db.query(
            f"SELECT {COLUMNS}, m.embedding FROM memories m WHERE m.seq > ?"
            " AND m.embedding IS NOT NULL AND m.needs_reindex = 0 ORDER BY m.seq LIMIT ?",
            (seq, limit),
        )
        return [(int(r["seq"]), row_to_memory(r), decode(r["embedding"], dim)) for r in rows]

    def embedded(
        self, owner: str, ids: Sequence[str], dim: int
    ) -> list[tuple[int, Memory, Vectors | None]]:
        """Those of the owner's memories ``ids`` that have a current vector, with it (None
        when it is not of dimension ``dim``), in seq order."""
        if not ids:
            return []
        owner_clause, params = owner_sql(owner)
        marks = ",".join("?" for _ in ids)
        rows = self.db.query(
            f"SELECT {COLUMNS}, m.embedding FROM memories m WHERE {owner_clause}"
            f" AND m.id IN ({marks}) AND m.embedding IS NOT NULL AND m.needs_reindex = 0"
            " ORDER BY m.seq",
            [*params, *ids],
        )
        return [(int(r["seq"]), row_to_memory(r), decode(r["embedding"], dim)) for r in rows]

    def embedded_count(self) -> int:
        return int(self.db.scalar("SELECT count(*) FROM memories WHERE embedding IS NOT NULL"))

    def owners(self) -> list[str]:
        """Every API key id that has written memories (maintenance views only)."""
        return [
            str(r["api_key_id"]) for r in self.db.query("SELECT api_key_id FROM owner_versions")
        ]

    def meta(self) -> VectorMeta:
        row = self.db.query_one(
            "SELECT active_dim, embedding_signature, last_reset_at FROM vector_meta WHERE id = 1"
        )
        if row is None:
            return VectorMeta()
        return VectorMeta(row["active_dim"], row["embedding_signature"], row["last_reset_at"])

    def reset(self, signature: str, dim: int, now_ms: int) -> int:
        with self.db.transaction():
            self.db.execute(
                "UPDATE vector_meta SET active_dim = ?, embedding_signature = ?,"
                " last_reset_at = ? WHERE id = 1",
                (dim, signature, now_ms),
            )
            pending = self.db.execute("UPDATE memories SET embedding = NULL, needs_reindex = 1")
            # Every process's index must reload: bump every owner.
            bump_every_version(self.db)
            self.db.execute(
                "UPDATE memories SET version = (SELECT version FROM owner_versions o"
                " WHERE o.api_key_id = memories.api_key_id)"
            )
            return pending

    def mark_all_pending(self) -> int:
        with self.db.transaction():
            marked = self.db.execute("UPDATE memories SET needs_reindex = 1")
            # A version that does not move tells readers nothing changed: the lazy-
            # embedding check would not look again (the rows' vectors stay valid).
            bump_every_version(self.db)
            return marked

    # -- what an in-memory index reads to catch up --------------------------------------------

    def observed_version(self, owner: str) -> int:
        """The owner's version as this retrieval read it (``versions.read_scope``)."""
        return owner_state(self.db, owner).version

    def changes(
        self, owner: str, since: int, dim: int = 0, *, bound: KeyBound | None = None
    ) -> Changes | None:
        """The owner's rows written and deleted after version ``since``: the first page
        and the deletions in one round trip to a server, the rest page by page as the
        caller reads them (never the whole key in memory at once).

        A first load (``since`` 0) measures the owner's rows in that same round trip and
        reads nothing more (None) when they are past ``bound``."""
        owner_clause, params = owner_sql(owner, alias="")
        limit = page_rows(dim)
        sql = _paged(owner_clause)
        statements = [(sql, (*params, since, 0, limit))]
        if since:
            statements.append(tombstones_since(owner, since))
        elif bound is not None:
            statements.append(
                (
                    "SELECT count(*) AS n, coalesce(sum(length(embedding)), 0) AS stored"
                    f" FROM memories WHERE {owner_clause}",
                    tuple(params),
                )
            )
        found = self.db.query_batch(statements)
        total = None
        if not since and bound is not None:
            total = int(found[1][0]["n"])
            if not bound.holds(total, int(found[1][0]["stored"])):
                return None
        dead = [int(r["seq"]) for r in found[1]] if since else []
        return Changes(self._pages(found[0], sql, params, since, limit), dead, total)

    def _pages(
        self, first: list[Row], sql: str, params: Sequence[object], since: int, limit: int
    ) -> Iterator[list[Row]]:
        page = first
        yield page
        while len(page) == limit:
            page = self.db.query(sql, (*params, since, int(page[-1]["seq"]), limit))
            yield page

    def nearest(
        self,
        owner: str,
        query: Vectors,
        dim: int,
        *,
        now_ms: int,
        cutoff_ms: int,
        session_id: str | None,
        limit: int,
    ) -> list[Row]:
        """The owner's ``limit`` rows nearest ``query`` by cosine, scored by the database
        (``vector_distance_cos``): the search for a key too large to hold in memory.
        Only vectors of ``dim`` (float32 or vector8) are compared: another length would
        make the function fail the whole statement."""
        owner_clause, params = owner_sql(owner, alias="")
        shortest, longest = f8_lengths(dim)
        where = (
            f"{owner_clause} AND embedding IS NOT NULL"
            " AND (length(embedding) = ? OR length(embedding) BETWEEN ? AND ?)"
            " AND updated_at >= ? AND (expires_at IS NULL OR expires_at > ?)"
        )
        values: list[object] = [*params, 4 * dim, shortest, longest, cutoff_ms, now_ms]
        if session_id is not None:
            where += " AND session_id = ?"
            values.append(session_id)
        return self.db.query(
            f"SELECT seq, id, {_SPEAKER_COLUMNS},"
            # The query in the row's own type (libSQL compares a type with itself only):
            # float32, or vector8 when vectors are stored as int8.
            " 1.0 - CASE WHEN length(embedding) = ?"
            " THEN vector_distance_cos(embedding, vector32(?))"
            " ELSE vector_distance_cos(embedding, vector8(?)) END AS similarity"
            f" FROM memories WHERE {where} ORDER BY similarity DESC, seq LIMIT ?",
            [4 * dim, to_f32_bytes(query), to_f32_bytes(query), *values, limit],
        )
