"""The libSQL vector tier: vectors beside the rows, scored with numpy over per-owner
matrices kept in memory (``vector_index``)."""

from __future__ import annotations

import numpy as np

from engram.adapters.libsql.vector_index import IndexCache
from engram.adapters.libsql.vector_rows import VectorRowsRepository, row_speaker
from engram.domain.models import OwnerFilter
from engram.ports import DenseScores, Vectors

__all__ = ["SQL_NEAREST", "LibsqlVectorTier"]

# How many rows a key searched in SQL contributes: the candidates fusion ranks with the
# keyword ones (the in-memory index scores every row; SQL returns the nearest only).
SQL_NEAREST = 200


class LibsqlVectorTier:
    store = "libsql"

    def __init__(self, cache: IndexCache, rows: VectorRowsRepository, dim: int) -> None:
        self.cache = cache
        self.rows = rows
        self.dim = dim

    def dense(self, query: Vectors, who: OwnerFilter, now_ms: int, cutoff_ms: int) -> DenseScores:
        parts = []
        for owner in who.owners:
            index = self.cache.get(owner, self.dim, self.rows)
            if index is None:  # more than this process may hold: the database scores it
                parts.append(self._nearest(query, owner, who.session_id, now_ms, cutoff_ms))
                continue
            # Another thread may refresh the index while this one scores it: everything
            # is cut to the rows the product saw (``position`` may name newer rows; the
            # ranking skips a position past ``sims``).
            sims = index.similarities(query)
            allowed = index.allowed(now_ms, cutoff_ms, who.session_id)
            n = min(len(sims), len(allowed))
            sims = sims[:n]
            sims[~allowed[:n]] = -np.inf
            # dict(...) copies in one step under the GIL; iterating the live mapping
            # while another thread adds a speaker would raise.
            masks = {name: mask[:n] for name, mask in dict(index.speaker_masks).items()}
            parts.append(
                DenseScores(
                    index.ids[:n],
                    sims,
                    index.position,
                    masks,
                    index.seq_position,
                    seqs=index.seqs[:n],
                )
            )
        return parts[0] if len(parts) == 1 else _concat(parts)

    def _nearest(
        self, query: Vectors, owner: str, session_id: str | None, now_ms: int, cutoff_ms: int
    ) -> DenseScores:
        """The nearest rows only, scored by SQL: exact cosine, without the neighbour
        smoothing the in-memory index adds; fusion takes keyword rows beside them."""
        rows = self.rows.nearest(
            owner,
            query,
            self.dim,
            now_ms=now_ms,
            cutoff_ms=cutoff_ms,
            session_id=session_id,
            limit=SQL_NEAREST,
        )
        ids = [str(r["id"]) for r in rows]
        speakers = [row_speaker(r) for r in rows]
        masks = {
            name: np.array([s == name for s in speakers], dtype=bool)
            for name in set(speakers)
            if name
        }
        seqs = [int(r["seq"]) for r in rows]
        return DenseScores(
            ids,
            np.array([float(r["similarity"]) for r in rows], dtype=np.float32),
            {memory_id: i for i, memory_id in enumerate(ids)},
            masks,
            {seq: i for i, seq in enumerate(seqs)},
            seqs=seqs,
            complete=False,
        )


def _concat(parts: list[DenseScores]) -> DenseScores:
    """Several owners' scores as one (global scope: the key's own and the shared ones)."""
    ids = [i for part in parts for i in part.ids]
    sims = np.concatenate([part.sims for part in parts])
    names = {name for part in parts for name in part.speaker_masks}
    masks = {
        name: np.concatenate(
            [part.speaker_masks.get(name, np.zeros(len(part.ids), dtype=bool)) for part in parts]
        )
        for name in names
    }
    seqs: dict[int, int] = {}
    offset = 0
    for part in parts:
        n = len(part.ids)
        live = dict(part.seq_position)  # a refresh may grow it meanwhile: rows past the cut
        seqs.update({seq: offset + pos for seq, pos in live.items() if pos < n})
        offset += len(part.ids)
    positions = {memory_id: i for i, memory_id in enumerate(ids)}
    order = [seq for part in parts for seq in part.seqs]
    complete = all(part.complete for part in parts)
    return DenseScores(ids, sims, positions, masks, seqs, seqs=order, complete=complete)
