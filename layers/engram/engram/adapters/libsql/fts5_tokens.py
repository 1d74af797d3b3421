"""FTS5's tokenizer and statistics, read the way FTS5 itself reads them, for the
per-owner keyword postings (``keyword_index.py``): tokens from a private in-memory FTS5
table with ``memory_fts``'s tokenizer (through ``fts5vocab 'instance'``), and the row
count and average length from FTS5's averages record. Tokenizing with FTS5 itself is
what makes the postings' BM25 equal FTS5's, stem for stem (Snowball's porter differs on
a handful of stems and emoji)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libsql

from engram.adapters.libsql.database import Row

__all__ = ["Fts5Tokenizer", "Tokens", "fts5_averages"]

TOKENIZE = "porter unicode61 remove_diacritics 2"  # memory_fts's (migration 0001)
# bm25(memory_fts, 0.5, 1.0, 0.5, 0.0) in search.py: key, content, context, owner token.
_WEIGHT_SQL = (
    "sum(CASE col WHEN 'key' THEN 0.5 WHEN 'content' THEN 1.0 WHEN 'context' THEN 0.5 ELSE 0.0 END)"
)


@dataclass
class Tokens:
    """Tokenized rows, columnar: each row's length, and (stem, row, weighted frequency)
    for every distinct stem of a row."""

    lengths: dict[int, int] = field(default_factory=dict)
    stems: list[str] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)

    def extend(self, other: Tokens) -> None:
        self.lengths.update(other.lengths)
        self.stems += other.stems
        self.seqs += other.seqs
        self.weights += other.weights


class Fts5Tokenizer:
    """FTS5's tokenizer, reached through a private in-memory FTS5 table. Not thread-safe:
    the keyword cache shares one under its lock, and a build tokenizes with its own."""

    def __init__(self) -> None:
        self._conn = libsql.connect(":memory:")
        # Rows are dropped after each page: their freed pages zeroed, not left in memory.
        self._conn.execute("PRAGMA secure_delete=ON")
        self._conn.execute(f"CREATE VIRTUAL TABLE q USING fts5(w, tokenize='{TOKENIZE}')")
        self._conn.execute("CREATE VIRTUAL TABLE qv USING fts5vocab(q, 'instance')")
        # Created once: creating and dropping the two tables per call changed the schema
        # each time (~0.75 of ~1.1 ms per call), and every write to an owner costs its next
        # retrieval a call.
        self._conn.execute(
            "CREATE VIRTUAL TABLE d USING fts5(key, content, context, owner_token,"
            f" tokenize='{TOKENIZE}')"
        )
        self._conn.execute("CREATE VIRTUAL TABLE dv USING fts5vocab(d, 'instance')")
        self._stems: dict[str, str | None] = {}

    def documents(self, rows: Sequence[Row]) -> Tokens:
        """``rows`` (seq, key, content, context, owner_token) tokenized."""
        conn = self._conn
        try:
            conn.executemany(
                "INSERT INTO d (rowid, key, content, context, owner_token) VALUES (?,?,?,?,?)",
                [(r["seq"], r["key"], r["content"], r["context"], r["owner_token"]) for r in rows],
            )
            # One pass over the instances: per (stem, row) the weighted frequency and the
            # count, whose sum per row is its length. The owner token's stem is kept with
            # weight 0: FTS5 matches a query word in any column, and scores it 0 there.
            found = conn.execute(
                f"SELECT term, doc, {_WEIGHT_SQL}, count(*) FROM dv GROUP BY term, doc"
            ).fetchall()
        finally:
            # Nothing of these rows stays in the table: a deletion leaves its tokens in
            # FTS5's segments until they merge, so they are merged at once ('optimize'),
            # and secure_delete zeroes the pages freed.
            conn.execute("DELETE FROM d")
            conn.execute("INSERT INTO d (d) VALUES ('optimize')")
        tokens = Tokens(lengths={int(r["seq"]): 0 for r in rows})
        if found:
            stems, seqs, weights, counts = zip(*found, strict=True)
            tokens.stems, tokens.seqs, tokens.weights = list(stems), list(seqs), list(weights)
            lengths = tokens.lengths
            for seq, count in zip(seqs, counts, strict=True):
                lengths[seq] += count
        return tokens

    def stem(self, word: str) -> str | None:
        """The one token FTS5 makes of a query word; None if it makes none or several
        (a phrase FTS5 would match as adjacent tokens)."""
        if word not in self._stems:
            if len(self._stems) > 65_536:
                self._stems.clear()
            self._conn.execute("INSERT INTO q (rowid, w) VALUES (1, ?)", (word,))
            terms = [str(r[0]) for r in self._conn.execute("SELECT term FROM qv").fetchall()]
            self._conn.execute("DELETE FROM q")
            self._stems[word] = terms[0] if len(terms) == 1 else None
        return self._stems[word]


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    """SQLite's big-endian varint at ``buf[i]``: (value, next offset)."""
    value = 0
    for _ in range(8):
        byte = buf[i]
        i += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, i
    return (value << 8) | buf[i], i + 1


def fts5_averages(block: bytes | None) -> tuple[int, float]:
    """(row count, average row length) from FTS5's averages record (id 1 of
    ``memory_fts_data``): the row count, then a token total per column."""
    if not block:
        return 0, 0.0
    rows, i = _varint(block, 0)
    total = 0
    while i < len(block):
        size, i = _varint(block, i)
        total += size
    return rows, total / rows if rows else 0.0
