"""One owner's keyword postings in numpy arrays, scored with FTS5's own BM25: the
structure ``keyword_index.KeywordIndexCache`` keeps per owner (its module docstring says
why, and how the answer stays FTS5's)."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engram.adapters.libsql.fts5_tokens import Tokens

__all__ = ["OwnerKeywords", "Query"]

K1, B = 1.2, 0.75  # FTS5's bm25 constants
_IDF_FLOOR = 1e-6  # FTS5's clamp for a term in half the rows or more
_FOLD_SHARE = 0.1  # fold the delta and the dead once they reach a tenth of the rows
_FOLD_MIN = 256

Array = Any  # numpy arrays; numpy's typing of fancy indexing adds nothing here


@dataclass(frozen=True)
class Query:
    """What one keyword query needs besides the owner's postings: the FTS5 stem of each
    query phrase (repeats kept: FTS5 scores each phrase), their global document
    frequencies, and the global row count and average length."""

    stems: list[str]
    doc_freq: dict[str, int]
    rows: int
    avgdl: float


class OwnerKeywords:
    """One owner's postings: main arrays in CSR form (per stem id, positions and weighted
    frequencies) plus a delta of rows written since the last fold."""

    def __init__(self, owner: str, version: int = 0) -> None:
        self.owner = owner
        self.version = version
        self.used = time.monotonic()  # when a query last read them
        self._vocab: dict[str, int] = {}
        self._next_tid = 0  # ids are not reused: a purge leaves gaps until the next fold
        self._load(np.zeros(0, np.int64), np.zeros(0), [], [], [])

    def _load(
        self,
        seq: Array,
        length: Array,
        tids: Sequence[int] | Array,
        rows: Sequence[int] | Array,
        tf: Sequence[float] | Array,
    ) -> None:
        """Main arrays from postings (stem id, position, frequency); no delta, no dead."""
        self._seq, self._length, self._n = seq, length, len(seq)
        self._alive = np.ones(self._n, dtype=bool)
        self._position = {s: i for i, s in enumerate(seq.tolist())}
        tid_array = np.asarray(tids, dtype=np.int64)
        row_array = np.asarray(rows, dtype=np.int32)
        order = np.lexsort((row_array, tid_array))
        self._rows = row_array[order]
        self._tf = np.asarray(tf, dtype=np.float32)[order]  # sums of halves: exact
        self._indptr = np.zeros(self._next_tid + 1, dtype=np.int64)
        np.cumsum(np.bincount(tid_array, minlength=self._next_tid), out=self._indptr[1:])
        self._delta: dict[int, list[tuple[int, float]]] = {}
        self._delta_rows = 0
        self._dead = 0

    @classmethod
    def build(cls, owner: str, version: int, pages: Iterable[Tokens]) -> OwnerKeywords:
        """Postings from tokenized pages of rows. Each page is made arrays as it comes
        (a stem string kept once, in the vocabulary): Python lists of a whole key's
        postings took ~12 KB a row while building, eight times the finished postings."""
        index = cls(owner, version)
        vocab = index._vocab
        parts: tuple[list[Array], ...] = ([], [], [], [], [])
        for tokens in pages:
            for part, array in zip(
                parts,
                (
                    np.fromiter(tokens.lengths, np.int64, len(tokens.lengths)),
                    np.fromiter(tokens.lengths.values(), np.float64, len(tokens.lengths)),
                    np.fromiter(
                        (vocab.setdefault(s, len(vocab)) for s in tokens.stems),
                        np.int64,
                        len(tokens.stems),
                    ),
                    np.asarray(tokens.seqs, dtype=np.int64),
                    np.asarray(tokens.weights, dtype=np.float32),
                ),
                strict=True,
            ):
                part.append(array)
        seqs, lengths, tids, row_seqs, weights = (
            np.concatenate(part) if part else np.zeros(0) for part in parts
        )
        order = np.argsort(seqs, kind="stable")
        seqs, lengths = seqs[order].astype(np.int64), lengths[order]
        index._next_tid = len(vocab)
        rows = np.searchsorted(seqs, row_seqs)
        index._load(seqs, lengths, tids.astype(np.int64), rows, weights)
        return index

    @property
    def size(self) -> int:
        return len(self._position)

    @property
    def nbytes(self) -> int:
        arrays = (self._seq, self._length, self._alive, self._indptr, self._rows, self._tf)
        # Python objects: ~100 bytes a stem in the vocabulary or a row's position, ~70 a
        # delta posting.
        delta = sum(len(p) for p in self._delta.values())
        objects = 100 * (len(self._vocab) + len(self._position)) + 70 * delta
        return sum(a.nbytes for a in arrays) + objects

    # -- writes -----------------------------------------------------------------------

    def apply(self, tokens: Tokens, dead: Iterable[int]) -> None:
        """Rows written (tokenized) and rows deleted since the last refresh.

        A deletion's words leave memory with it (forgetting promises nothing of a
        forgotten memory is left anywhere): the stems no live row holds any more are
        purged from the vocabulary at once, not at the next fold."""
        deleted = False
        for seq in dead:
            self._kill(seq)
            deleted = True
        by_row: dict[int, list[tuple[str, float]]] = {s: [] for s in tokens.lengths}
        for stem, seq, weight in zip(tokens.stems, tokens.seqs, tokens.weights, strict=True):
            by_row[seq].append((stem, weight))
        for seq, stems in by_row.items():
            self._kill(seq)
            self._add(seq, stems, tokens.lengths[seq])
        if self._delta_rows + self._dead >= max(_FOLD_MIN, _FOLD_SHARE * self._n):
            self._fold()
        elif deleted:
            self._purge()

    def _kill(self, seq: int) -> None:
        pos = self._position.pop(seq, None)
        if pos is not None:
            self._alive[pos] = False
            self._dead += 1

    def _add(self, seq: int, stems: list[tuple[str, float]], length: int) -> None:
        if self._n == len(self._seq):
            capacity = max(64, 2 * self._n)
            self._seq = np.resize(self._seq, capacity)
            self._length = np.resize(self._length, capacity)
            alive = np.zeros(capacity, dtype=bool)
            alive[: self._n] = self._alive[: self._n]
            self._alive = alive
        pos = self._n
        self._n += 1
        self._seq[pos], self._length[pos], self._alive[pos] = seq, length, True
        self._position[seq] = pos
        for stem, tf in stems:
            tid = self._vocab.get(stem)
            if tid is None:
                tid = self._vocab[stem] = self._next_tid
                self._next_tid += 1
            self._delta.setdefault(tid, []).append((pos, tf))
        self._delta_rows += 1

    def _fold(self) -> None:
        """Main arrays rebuilt from the live postings (main and delta); positions
        renumbered so the dead leave."""
        n = self._n
        delta = [(t, p, f) for t, posts in self._delta.items() for p, f in posts]
        tids = np.concatenate(
            [
                self._main_tids(),
                np.fromiter((t for t, _, _ in delta), np.int64, len(delta)),
            ]
        )
        rows = np.concatenate(
            [self._rows.astype(np.int64), np.fromiter((p for _, p, _ in delta), np.int64)]
        )
        tf = np.concatenate([self._tf, np.fromiter((f for _, _, f in delta), np.float32)])
        alive = self._alive[:n]
        keep = alive[rows]
        renumber = np.cumsum(alive) - 1
        seq, length = self._seq[:n][alive], self._length[:n][alive]
        # Stem ids renumbered too: the stems only dead rows held leave the vocabulary.
        kept = tids[keep]
        held = np.bincount(kept, minlength=self._next_tid) > 0
        new_id = np.cumsum(held) - 1
        self._vocab = {s: int(new_id[t]) for s, t in self._vocab.items() if held[t]}
        self._next_tid = len(self._vocab)
        self._load(seq, length, new_id[kept], renumber[rows[keep]], tf[keep])

    def _main_tids(self) -> Array:
        """The stem id of each posting of the main arrays (CSR expanded)."""
        return np.repeat(np.arange(len(self._indptr) - 1, dtype=np.int64), np.diff(self._indptr))

    def _purge(self) -> None:
        """Dead rows' postings out of the delta, and the stems no live row holds out of
        the vocabulary (their main postings stay, unreachable, until the next fold)."""
        alive = self._alive[: self._n]
        main_tids = self._main_tids()
        held = np.zeros(self._next_tid, dtype=bool)
        held[main_tids[alive[self._rows]]] = True
        for tid, posts in list(self._delta.items()):
            live = [(p, f) for p, f in posts if alive[p]]
            if live:
                self._delta[tid] = live
                held[tid] = True
            else:
                del self._delta[tid]
        self._vocab = {s: t for s, t in self._vocab.items() if held[t]}

    # -- reads ------------------------------------------------------------------------

    def _postings(self, stem: str) -> tuple[Array, Array]:
        """Positions (dead ones included) and weighted frequencies of ``stem``."""
        tid = self._vocab.get(stem)
        if tid is None:
            return np.zeros(0, np.int64), np.zeros(0)
        rows: Array = np.zeros(0, np.int64)
        tf: Array = np.zeros(0)
        if tid + 1 < len(self._indptr):
            a, b = self._indptr[tid], self._indptr[tid + 1]
            rows, tf = self._rows[a:b], self._tf[a:b].astype(np.float64)
        extra = self._delta.get(tid)
        if extra:
            rows = np.concatenate([rows, np.fromiter((p for p, _ in extra), np.int64)])
            tf = np.concatenate([tf, np.fromiter((f for _, f in extra), np.float64)])
        return rows, tf

    def search(self, query: Query, limit: int) -> list[tuple[int, float]]:
        """(seq, bm25) of the best ``limit`` live rows containing any stem, best first;
        bm25 negative as FTS5's (lower is better)."""
        n = self._n
        if not n or query.rows <= 0 or query.avgdl <= 0:
            return []
        alive = self._alive[:n]
        score = np.zeros(n)
        hit = np.zeros(n, dtype=bool)
        for stem in query.stems:
            rows, tf = self._postings(stem)
            live = int(np.count_nonzero(alive[rows]))
            if not live:
                continue
            # A frequency cached before the owner's newest rows may be lower than what the
            # owner alone holds now: the IDF never counts fewer rows than that.
            # Nor more than the rows there are: a frequency cached before deletions may be.
            df = min(max(query.doc_freq.get(stem, 0), live), query.rows)
            idf = math.log((query.rows - df + 0.5) / (df + 0.5))
            idf = idf if idf > 0 else _IDF_FLOOR
            norm = K1 * (1 - B + B * self._length[rows] / query.avgdl)
            # FTS5's own order of operations (fts5_aux.c): equal scores stay equal.
            score[rows] += idf * ((tf * (K1 + 1.0)) / (tf + norm))
            hit[rows] = True
        found = np.flatnonzero(hit & alive)
        values = score[found]
        if len(found) > limit:
            # Keep every row tied with the limit-th score, for the rowid tie-break below.
            cut = -np.partition(-values, limit - 1)[limit - 1]
            found, values = found[values >= cut], values[values >= cut]
        order = np.lexsort((self._seq[found], -values))[:limit]
        seqs: list[int] = self._seq[found[order]].tolist()
        return list(zip(seqs, (-values[order]).tolist(), strict=True))
