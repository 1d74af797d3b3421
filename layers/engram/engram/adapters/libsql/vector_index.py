"""Per-owner vector matrices in memory, refreshed with only what changed.

Brute force over a numpy matrix is exact and fast at the sizes one API key holds
(10k x 256 float32 = 10 MB: 0.2 ms per query, against 16 ms for SQL's
``vector_distance_cos`` over the same rows; docs/retrieval.md). Each index
remembers the owner version it reflects; a query first reads the owner's current
version (one primary-key lookup) and applies only the rows written and deleted
since, so a new memory costs the next query a row, not a rebuild.

Each memory's vector is smoothed with its neighbours' in the same session
(v + 0.5 (prev + next), renormalised): the dense twin of the keyword context, with the
same streams (stored turns neighbour turns, other memories each other: context.py).
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections import OrderedDict

import numpy as np
import numpy.typing as npt

from engram.adapters.libsql.database import Row
from engram.adapters.libsql.encoding import decode
from engram.adapters.libsql.vector_rows import KeyBound, VectorRowsRepository, row_speaker
from engram.ports import Vectors

__all__ = ["IndexCache", "OwnerIndex"]

log = logging.getLogger(__name__)

SMOOTHING = 0.5
_REBUILD_DEAD_SHARE = 0.2  # compact once a fifth of the rows are deleted ones
_ROW_BYTES = 200  # a row's id, seq, times and links in the lists and arrays
_SMOOTH_SLICE = 4096
_PRODUCT_SLICE = 8192
# A key whose float32 matrices would take more than this share of the cache is held as
# int8 (a quarter of the memory), so the cache keeps room for other keys.
_COMPACT_SHARE = 0.25
# How long a key found too large to hold is searched in SQL before its size is read again.
OUTSIZED_RECHECK_S = 300.0


class _Matrix:
    """Rows of vectors, float32 or int8 with a scale per row (``compact``: a quarter of
    the memory; cosine moves by about 1e-3, which leaves rankings as they were)."""

    def __init__(self, capacity: int, dim: int, compact: bool) -> None:
        self.compact = compact
        self.values = np.zeros((capacity, dim), dtype=np.int8 if compact else np.float32)
        self.scale = np.ones(capacity if compact else 0, dtype=np.float32)

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes + self.scale.nbytes)

    def grown(self, capacity: int, n: int) -> _Matrix:
        new = _Matrix(capacity, self.values.shape[1], self.compact)
        new.values[:n] = self.values[:n]
        if self.compact:
            new.scale[:n] = self.scale[:n]
        return new

    def set(self, rows: npt.NDArray[np.int64] | int, vectors: Vectors) -> None:
        if not self.compact:
            self.values[rows] = vectors
            return
        vectors = np.atleast_2d(vectors)
        peak = np.abs(vectors).max(axis=1)
        scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        quantized = np.rint(vectors / scale[:, None]).astype(np.int8)
        self.values[rows] = quantized if np.ndim(rows) else quantized[0]
        self.scale[rows] = scale if np.ndim(rows) else scale[0]

    def get(self, rows: npt.NDArray[np.int64]) -> Vectors:
        if not self.compact:
            return self.values[rows].copy()
        return self.values[rows].astype(np.float32) * self.scale[rows, None]

    def times(self, query: Vectors, n: int) -> npt.NDArray[np.float32]:
        """The first ``n`` rows times ``query``; int8 rows in slices, so the float copy
        numpy makes of them stays small."""
        if not self.compact:
            return self.values[:n] @ query
        out = np.empty(n, dtype=np.float32)
        for start in range(0, n, _PRODUCT_SLICE):
            stop = min(start + _PRODUCT_SLICE, n)
            out[start:stop] = self.values[start:stop] @ query
            out[start:stop] *= self.scale[start:stop]
        return out


class OwnerIndex:
    def __init__(self, owner: str, dim: int) -> None:
        self.owner = owner
        self.dim = dim
        self.version = 0
        self.compact = False
        self._reset(0)

    def _reset(self, capacity: int, compact: bool = False) -> None:
        capacity = max(capacity, 64)
        self.compact = compact
        self.n = 0
        self.ids: list[str] = []
        self.position: dict[str, int] = {}
        self._pos_of_seq: dict[int, int] = {}
        self._seq: list[int] = []
        self._raw = _Matrix(capacity, self.dim, compact)
        self._smoothed = _Matrix(capacity, self.dim, compact)
        self._capacity = capacity
        self._has_vector = np.zeros(capacity, dtype=bool)
        self._alive = np.zeros(capacity, dtype=bool)
        self._updated = np.zeros(capacity, dtype=np.int64)
        self._expires = np.zeros(capacity, dtype=np.int64)
        self._session_code = np.full(capacity, -1, dtype=np.int64)
        self._prev = np.full(capacity, -1, dtype=np.int64)
        self._next = np.full(capacity, -1, dtype=np.int64)
        self._session_ids: dict[str, int] = {}
        # (session code, is a turn) -> its rows in order, (created, seq, pos)
        self._session_rows: dict[tuple[int, bool], list[tuple[int, int, int]]] = {}
        self._created: list[int] = []
        self._turn: list[bool] = []  # the stream each position is linked in
        self._speaker: list[str | None] = []
        self.speaker_masks: dict[str, npt.NDArray[np.bool_]] = {}
        self._dead = 0
        self._stored = np.zeros(capacity, dtype=np.int32)  # each row's vector as stored
        self.stored_bytes = 0

    # -- views used by queries -------------------------------------------------------

    def similarities(self, query: Vectors) -> npt.NDArray[np.float32]:
        """Cosine of every row's smoothed vector to ``query`` (a unit vector)."""
        return self._smoothed.times(query, self.n)

    @property
    def nbytes(self) -> int:
        return self._raw.nbytes + self._smoothed.nbytes + _ROW_BYTES * self.n

    @property
    def seq_position(self) -> dict[int, int]:
        return self._pos_of_seq

    @property
    def seqs(self) -> list[int]:
        """Each position's row seq (a deleted row's stays until the next compaction)."""
        return self._seq

    def allowed(self, now_ms: int, cutoff_ms: int, session: str | None) -> npt.NDArray[np.bool_]:
        """Rows a query may return: alive, live, within retention, in the session, embedded."""
        n = self.n
        expires = self._expires[:n]
        mask = self._alive[:n] & self._has_vector[:n] & (self._updated[:n] >= cutoff_ms)
        mask &= (expires < 0) | (expires > now_ms)
        if session is not None:
            mask &= self._session_code[:n] == self._session_ids.get(session, -2)
        return mask

    # -- refresh ----------------------------------------------------------------------

    @staticmethod
    def row_bytes(dim: int, compact: bool = False) -> int:
        """What one row costs in memory: its raw and smoothed vectors, the rest."""
        return 2 * (dim + 4 if compact else 4 * dim) + _ROW_BYTES

    def refresh(self, rows_of: VectorRowsRepository, bound: KeyBound | None = None) -> bool:
        """Catch up with the owner's writes; False when the owner is past ``bound`` (a
        first load then reads nothing more than its measure)."""
        current = rows_of.observed_version(self.owner)
        if current <= self.version:  # versions only grow: another thread caught up further
            return True
        # The version was read first (with the retrieval's other reads), and a write moves
        # it in the transaction that writes its rows: a write landing while the changes are
        # read has a later version, which the next refresh reads again (applying a row or
        # a deletion twice is harmless). So no snapshot is needed: no transaction, which
        # took a file's write lock and cost a server four round trips instead of one.
        changed = rows_of.changes(self.owner, self.version, self.dim, bound=bound)
        if changed is None:
            return False
        dead = changed.dead
        if self.version == 0 or self._dead + len(dead) > _REBUILD_DEAD_SHARE * max(self.n, 1):
            if self.version:  # compact: reload everything
                changed = rows_of.changes(self.owner, 0, self.dim, bound=bound)
                if changed is None:
                    return False
            total = changed.total or 0
            self._reset(int(total * 1.25), compact=bound is not None and total > bound.rows)
            dead = []
        touched: set[int] = set()
        for seq in dead:
            touched |= self._remove(seq)
        for page in changed.pages:  # a page at a time: the key is never in memory twice
            for row in page:
                touched |= self._upsert(row)
        self._smooth(touched)
        self.version = current
        if bound is None:
            return True
        rows = bound.compact_rows if self.compact else bound.rows
        return self.n - self._dead <= rows and self.stored_bytes <= bound.stored_bytes

    def _grow(self) -> None:
        capacity = self._capacity * 2
        self._capacity = capacity
        self._raw = self._raw.grown(capacity, self.n)
        self._smoothed = self._smoothed.grown(capacity, self.n)
        for name, fill in (
            ("_has_vector", False),
            ("_alive", False),
            ("_updated", 0),
            ("_expires", 0),
            ("_session_code", -1),
            ("_prev", -1),
            ("_next", -1),
            ("_stored", 0),
        ):
            old = getattr(self, name)
            new = np.full(capacity, fill, dtype=old.dtype)
            new[: self.n] = old[: self.n]
            setattr(self, name, new)
        for name in list(self.speaker_masks):
            mask = np.zeros(capacity, dtype=bool)
            mask[: self.n] = self.speaker_masks[name][: self.n]
            self.speaker_masks[name] = mask

    def _upsert(self, row: Row) -> set[int]:
        seq = int(row["seq"])
        pos = self._pos_of_seq.get(seq)
        touched: set[int] = set()
        if pos is None:
            if self.n == self._capacity:
                self._grow()
            pos = self.n
            self.n += 1
            self._pos_of_seq[seq] = pos
            self._seq.append(seq)
            self.ids.append(row["id"])
            self._created.append(int(row["created_at"]))
            self._turn.append(False)
            self._speaker.append(None)
            self.position[row["id"]] = pos
            self._alive[pos] = True
        else:
            touched |= self._unlink(pos)
        blob = row["embedding"]
        vector = decode(blob, self.dim)
        stored = len(blob) if blob is not None else 0
        self.stored_bytes += stored - int(self._stored[pos])
        self._stored[pos] = stored
        self._has_vector[pos] = vector is not None
        self._raw.set(pos, np.zeros(self.dim, dtype=np.float32) if vector is None else vector)
        self._updated[pos] = int(row["updated_at"])
        self._expires[pos] = -1 if row["expires_at"] is None else int(row["expires_at"])
        self._set_speaker(pos, row_speaker(row))
        self._turn[pos] = bool(row["turn"])
        touched |= self._link(pos, row["session_id"])
        return touched | {pos}

    def _remove(self, seq: int) -> set[int]:
        pos = self._pos_of_seq.pop(seq, None)
        if pos is None:
            return set()
        touched = self._unlink(pos)
        self._alive[pos] = False
        self._has_vector[pos] = False
        self.stored_bytes -= int(self._stored[pos])
        self._stored[pos] = 0
        self._set_speaker(pos, None)
        del self.position[self.ids[pos]]
        self._dead += 1
        return touched

    def _set_speaker(self, pos: int, speaker: str | None) -> None:
        old = self._speaker[pos]
        if old is not None:
            self.speaker_masks[old][pos] = False
        if speaker is not None:
            mask = self.speaker_masks.get(speaker)
            if mask is None:
                mask = self.speaker_masks[speaker] = np.zeros(self._capacity, dtype=bool)
            mask[pos] = True
        self._speaker[pos] = speaker

    def _link(self, pos: int, session: str | None) -> set[int]:
        """Place ``pos`` in its session's order; returns the neighbours it touched."""
        if session is None:
            self._session_code[pos] = -1
            return set()
        code = self._session_ids.setdefault(session, len(self._session_ids))
        self._session_code[pos] = code
        rows = self._session_rows.setdefault((code, self._turn[pos]), [])
        entry = (self._created[pos], self._seq[pos], pos)
        at = bisect.bisect_left(rows, entry)
        rows.insert(at, entry)
        prev = rows[at - 1][2] if at > 0 else -1
        nxt = rows[at + 1][2] if at + 1 < len(rows) else -1
        self._prev[pos], self._next[pos] = prev, nxt
        if prev >= 0:
            self._next[prev] = pos
        if nxt >= 0:
            self._prev[nxt] = pos
        return {p for p in (prev, nxt) if p >= 0}

    def _unlink(self, pos: int) -> set[int]:
        code = int(self._session_code[pos])
        if code < 0:
            return set()
        rows = self._session_rows[(code, self._turn[pos])]
        rows.remove((self._created[pos], self._seq[pos], pos))
        prev, nxt = int(self._prev[pos]), int(self._next[pos])
        if prev >= 0:
            self._next[prev] = nxt
        if nxt >= 0:
            self._prev[nxt] = prev
        self._prev[pos] = self._next[pos] = -1
        self._session_code[pos] = -1
        return {p for p in (prev, nxt) if p >= 0}

    def _smooth(self, positions: set[int]) -> None:
        # In slices: a whole key at once would hold three more copies of its matrix.
        ordered = np.fromiter(positions, dtype=np.int64)
        for start in range(0, len(ordered), _SMOOTH_SLICE):
            self._smooth_rows(ordered[start : start + _SMOOTH_SLICE])

    def _smooth_rows(self, rows: npt.NDArray[np.int64]) -> None:
        smoothed = self._raw.get(rows)
        for neighbours in (self._prev[rows], self._next[rows]):
            has = neighbours >= 0
            smoothed[has] += SMOOTHING * self._raw.get(neighbours[has])
        norms = np.linalg.norm(smoothed, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self._smoothed.set(rows, smoothed / norms)


class IndexCache:
    """Owner indexes, least recently used evicted past ``max_bytes``.

    One owner is held only while it fits ``max_bytes`` and its vectors as stored fit
    ``key_max_bytes`` (what a cold load reads): a larger key is not loaded (``get``
    answers None) and is searched in SQL instead; it is measured again after
    ``OUTSIZED_RECHECK_S``, so a key that shrank comes back to memory by itself.
    """

    def __init__(self, max_bytes: int, key_max_bytes: int | None = None) -> None:
        self.max_bytes = max_bytes
        self.key_max_bytes = max_bytes if key_max_bytes is None else key_max_bytes
        self._indexes: OrderedDict[str, OwnerIndex] = OrderedDict()
        self._outsized: dict[str, float] = {}  # owner -> when it was found too large
        self._lock = threading.Lock()

    def bound(self, dim: int) -> KeyBound:
        return KeyBound(
            rows=int(self.max_bytes * _COMPACT_SHARE) // OwnerIndex.row_bytes(dim),
            compact_rows=self.max_bytes // OwnerIndex.row_bytes(dim, compact=True),
            stored_bytes=self.key_max_bytes,
        )

    def get(self, owner: str, dim: int, rows_of: VectorRowsRepository) -> OwnerIndex | None:
        with self._lock:
            found = self._outsized.get(owner)
            if found is not None and time.monotonic() - found < OUTSIZED_RECHECK_S:
                return None
            index = self._indexes.get(owner)
            if index is None or index.dim != dim:
                index = self._indexes[owner] = OwnerIndex(owner, dim)
            self._indexes.move_to_end(owner)
            loaded = index.version > 0
            held = index.refresh(rows_of, self.bound(dim))
            if not held and loaded and not index.compact:  # grew past float32's share: int8
                index = self._indexes[owner] = OwnerIndex(owner, dim)
                held = index.refresh(rows_of, self.bound(dim))
            if not held:
                del self._indexes[owner]
                self._outsized[owner] = time.monotonic()
                log.info("a key holds more vectors than a process loads: searched in SQL")
                return None
            self._outsized.pop(owner, None)
            while len(self._indexes) > 1 and self.nbytes > self.max_bytes:
                self._indexes.popitem(last=False)
            return index

    @property
    def nbytes(self) -> int:
        return sum(i.nbytes for i in self._indexes.values())

    def clear(self) -> None:
        with self._lock:
            self._indexes.clear()
            self._outsized.clear()
