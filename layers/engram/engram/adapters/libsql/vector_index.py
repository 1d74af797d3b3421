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
import threading
from collections import OrderedDict

import numpy as np
import numpy.typing as npt

from ...ports import Vectors
from ...terms import prefix_speaker
from .database import Row
from .encoding import decode
from .vector_rows import VectorRowsRepository

__all__ = ["IndexCache", "OwnerIndex"]

SMOOTHING = 0.5
_REBUILD_DEAD_SHARE = 0.2  # compact once a fifth of the rows are deleted ones


class OwnerIndex:
    def __init__(self, owner: str, dim: int) -> None:
        self.owner = owner
        self.dim = dim
        self.version = 0
        self._reset(0)

    def _reset(self, capacity: int) -> None:
        capacity = max(capacity, 64)
        self.n = 0
        self.ids: list[str] = []
        self.position: dict[str, int] = {}
        self._pos_of_seq: dict[int, int] = {}
        self._seq: list[int] = []
        self._raw = np.zeros((capacity, self.dim), dtype=np.float32)
        self._smoothed = np.zeros((capacity, self.dim), dtype=np.float32)
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

    # -- views used by queries -------------------------------------------------------

    @property
    def matrix(self) -> Vectors:
        return self._smoothed[: self.n]

    @property
    def nbytes(self) -> int:
        return int(self._raw.nbytes + self._smoothed.nbytes) + 200 * self.n

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

    def refresh(self, rows_of: VectorRowsRepository) -> None:
        current = rows_of.observed_version(self.owner)
        if current <= self.version:  # versions only grow: another thread caught up further
            return
        # The version was read first (with the retrieval's other reads), and a write moves
        # it in the transaction that writes its rows: a write landing while the changes are
        # read has a later version, which the next refresh reads again (applying a row or
        # a deletion twice is harmless). So no snapshot is needed: no transaction, which
        # took a file's write lock and cost a server four round trips instead of one.
        rows, dead = rows_of.changes(self.owner, self.version, self.dim)
        if self.version == 0 or self._dead + len(dead) > _REBUILD_DEAD_SHARE * max(self.n, 1):
            if self.version and (dead or rows):
                rows = rows_of.index_rows(self.owner, 0, self.dim)  # compact: reload everything
            self._reset(int(len(rows) * 1.25))
            dead = []
        touched: set[int] = set()
        for seq in dead:
            touched |= self._remove(seq)
        for row in rows:
            touched |= self._upsert(row)
        self._smooth(touched)
        self.version = current

    def _grow(self) -> None:
        capacity = self._raw.shape[0] * 2
        for name in ("_raw", "_smoothed"):
            old = getattr(self, name)
            new = np.zeros((capacity, self.dim), dtype=np.float32)
            new[: self.n] = old[: self.n]
            setattr(self, name, new)
        for name, fill in (
            ("_has_vector", False),
            ("_alive", False),
            ("_updated", 0),
            ("_expires", 0),
            ("_session_code", -1),
            ("_prev", -1),
            ("_next", -1),
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
            if self.n == self._raw.shape[0]:
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
        vector = decode(row["embedding"], self.dim)
        self._has_vector[pos] = vector is not None
        self._raw[pos] = 0.0 if vector is None else vector
        self._updated[pos] = int(row["updated_at"])
        self._expires[pos] = -1 if row["expires_at"] is None else int(row["expires_at"])
        speaker = row["speaker"] if isinstance(row["speaker"], str) else None
        self._set_speaker(pos, speaker or prefix_speaker(row.get("opening")))
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
                mask = self.speaker_masks[speaker] = np.zeros(self._raw.shape[0], dtype=bool)
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
        if not positions:
            return
        rows = np.fromiter(positions, dtype=np.int64)
        smoothed = self._raw[rows].copy()
        for neighbours in (self._prev[rows], self._next[rows]):
            has = neighbours >= 0
            smoothed[has] += SMOOTHING * self._raw[neighbours[has]]
        norms = np.linalg.norm(smoothed, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self._smoothed[rows] = smoothed / norms


class IndexCache:
    """Owner indexes, least recently used evicted past ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._indexes: OrderedDict[str, OwnerIndex] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, owner: str, dim: int, rows_of: VectorRowsRepository) -> OwnerIndex:
        with self._lock:
            index = self._indexes.get(owner)
            if index is None or index.dim != dim:
                index = self._indexes[owner] = OwnerIndex(owner, dim)
            self._indexes.move_to_end(owner)
            index.refresh(rows_of)
            while len(self._indexes) > 1 and self.nbytes > self.max_bytes:
                self._indexes.popitem(last=False)
            return index

    @property
    def nbytes(self) -> int:
        return sum(i.nbytes for i in self._indexes.values())

    def clear(self) -> None:
        with self._lock:
            self._indexes.clear()
