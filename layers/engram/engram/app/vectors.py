"""Vectors: the active embedder, stored vectors kept in step with it, dense search.

The embedding signature (``source:model:dim[:int8]``) is checked before vectors
are used; a change marks every memory for re-embedding. Pending memories are
embedded by the embedding worker (every write asks for it), lazily by retrieval
(a bounded batch), and by reindex batches. Dense search asks the tiers in order
(Qdrant when it is the vector store, then libSQL's own vectors) and says in
``reasons`` why it fell back.

One embedder for the whole deployment. The chat proxy, the workers, the memory API,
the preview and the reindex schedule share one database but not one environment.
Only the embedder the stored settings choose may write vectors or reset the
signature; a process that cannot build it (no key or endpoint for ``remote``, no
model files) does not fall back to another source: it writes no vector, resets
nothing, leaves memories pending for a process that can, ranks on keywords alone,
and says so (``resolution``, ``failures``, engine-status's ``embeddingUnavailable``).
Falling back would make processes disagree on the signature and each would reset
every stored vector to its own, every time it ran (issue 13: static -> remote ->
static every five minutes). For the same reason a reset is decided on settings read
fresh from storage: a process whose cached settings are older than another's must
not undo the re-embedding the newer settings asked for.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engram.app.embedding import ActiveEmbedder
from engram.app.health import FailureLog
from engram.app.qdrant_tier import QdrantService
from engram.app.vector_upkeep import VectorMaintenance
from engram.domain.errors import DimensionMismatch, EmbeddingError, EngramError
from engram.domain.models import EmbeddingJob, OwnerFilter, ReindexRequest, ReindexResult
from engram.ports import DenseScores, VectorRows, Vectors, VectorTier

__all__ = ["DenseAnswer", "VectorService"]

log = logging.getLogger(__name__)

# Pending memories a query embeds first: a local model does 512 in well under a
# second; a remote endpoint pays a round trip per batch, so it gets a smaller one.
LAZY_BATCH_LOCAL = 512
LAZY_BATCH_REMOTE = 32
# Owners remembered as having nothing to embed (a small int each; forgotten all at once).
_SETTLED_OWNERS = 10_000
# How a failure of the configured embedder to be built here is worded (and recognised).
_UNAVAILABLE = "unavailable"


@dataclass
class DenseAnswer:
    """Vector evidence for a query, or None and why (``reasons``)."""

    scores: DenseScores | None
    embedding_source: str | None = None
    vector_store: str | None = None
    reasons: list[str] = field(default_factory=list)
    # Parts that failed answering this query (not a configuration without vectors).
    failed: list[str] = field(default_factory=list)


class VectorService:
    def __init__(
        self,
        embeddings: ActiveEmbedder,
        rows: VectorRows,
        libsql_tier: Callable[[int], VectorTier],
        qdrant: QdrantService,
        now_ms: Callable[[], int],
        *,
        failures: FailureLog | None = None,
        int8: bool = False,
        background_s: float = 0.0,
        trust_s: float = 0.0,
        lazy_embedding: bool = True,
    ) -> None:
        self.failures = failures or FailureLog(now_ms)
        self.embeddings = embeddings
        self.rows = rows
        self.libsql_tier = libsql_tier
        self.qdrant = qdrant
        self.now_ms = now_ms
        self.int8 = int8
        self.background_s = background_s
        # How long a verified signature is trusted without reading it again: the settings
        # cache's time, since only a settings change (seen by every process within that
        # time) changes the signature. Each read is a round trip to a remote database.
        self.trust_s = trust_s
        self._verified: tuple[str, float] | None = None
        # Query-time embedding of pending memories; off against a remote database, where
        # the embedding worker and the reindex schedule do it and a query should not pay
        # the extra round trip to look.
        self.lazy_embedding = lazy_embedding
        # owner -> the version at which it had nothing pending: every write (one without
        # a vector too) and every reset moves the version, so until it moves there is
        # nothing to look for.
        self._settled: dict[str, int] = {}

    def _maintenance(self, *, fresh: bool = False) -> tuple[VectorMaintenance | None, str | None]:
        """Upkeep by the configured embedder, or None and why (recorded as a failure when
        the settings choose an embedder this process cannot build)."""
        choice = self.embeddings.current(fresh=fresh)
        if choice.embedder is None:
            if not choice.unavailable:  # keyword only by configuration: nothing is failing
                self.failures.recovered("embedder", error_prefix=_UNAVAILABLE)
                return None, choice.reason
            log.warning("the configured embedder is unavailable here: %s", choice.reason)
            self.failures.failed("embedder", f"{_UNAVAILABLE}: {choice.reason}")
            return None, f"embedding {_UNAVAILABLE}: {choice.reason}"
        self.failures.recovered("embedder", error_prefix=_UNAVAILABLE)
        return VectorMaintenance(self.rows, choice.embedder, self.int8, self.now_ms), None

    def _in_step(
        self, maintenance: VectorMaintenance
    ) -> tuple[VectorMaintenance | None, str | None]:
        """Upkeep whose signature the stored vectors have: when they differ, the settings
        are read again from storage and, if they still choose this embedding, every
        vector is reset for it. None and why when the fresh settings choose an embedder
        this process cannot build (the vectors are then left as they are)."""
        if self._matches(maintenance):
            return maintenance, None
        confirmed, reason = self._maintenance(fresh=True)
        if confirmed is None:
            return None, reason
        confirmed.ensure_signature()
        self._verified = (confirmed.signature, time.monotonic())
        return confirmed, None

    def _matches(self, maintenance: VectorMaintenance) -> bool:
        verified, now = self._verified, time.monotonic()
        if verified and verified[0] == maintenance.signature and now - verified[1] < self.trust_s:
            return True
        matches = maintenance.signature_matches()
        self._verified = (maintenance.signature, now) if matches else None
        return matches

    # -- search ---------------------------------------------------------------------------

    def dense(
        self, query: str, who: OwnerFilter, now_ms: int, cutoff_ms: int, *, read_only: bool = False
    ) -> DenseAnswer:
        """Scores from the first tier that answers (Qdrant -> libSQL), or None and why.

        ``read_only`` (the preview) writes nothing: no signature reset, no lazy
        embedding; memories still waiting for a vector are simply not scored.
        """
        maintenance, reason = self._maintenance()
        if maintenance is None:
            return DenseAnswer(None, reasons=[f"keyword only: {reason}"])
        answer = DenseAnswer(None)
        try:
            if read_only and not self._matches(maintenance):
                answer.reasons.append("keyword only: stored vectors are of another embedding")
                return answer
            if not read_only:
                maintenance, reason = self._in_step(maintenance)
                if maintenance is None:
                    answer.reasons.append(f"keyword only: {reason}")
                    return answer
        except EmbeddingError as exc:  # a remote embedder learns its dimension by calling
            log.warning("vector search unavailable: %s", exc.message)
            self.failures.failed("embedder", exc.message)
            answer.reasons += [f"embedding failed ({exc.message})", "keyword only"]
            answer.failed.append("embedder")
            return answer
        except EngramError as exc:  # the signature cannot be checked: no vector is trusted
            log.warning("vectors unavailable: %s", exc.message)
            self.failures.failed("vectors", exc.message)
            answer.reasons += [f"vectors unavailable ({exc.message})", "keyword only"]
            answer.failed.append("vectors")
            return answer
        embedder = maintenance.embedder
        if not read_only and self.lazy_embedding:
            self._embed_lazily(maintenance, who)
        try:
            query_vector = embedder.embed([query])[0]
        except EngramError as exc:
            log.warning("vector search unavailable: %s", exc.message)
            self.failures.failed("embedder", exc.message)
            answer.reasons += [f"embedding failed ({exc.message})", "keyword only"]
            answer.failed.append("embedder")
            return answer
        self.failures.recovered("embedder")
        for tier in self._tiers(embedder.dim, answer):
            try:
                scores = tier.dense(query_vector, who, now_ms, cutoff_ms)
            except EngramError as exc:
                log.warning("vector tier %s failed: %s", tier.store, exc.message)
                answer.reasons.append(f"vector tier {tier.store} failed ({exc.message})")
                self.failures.failed(f"vector store {tier.store}", exc.message)
                answer.failed.append(f"vector store {tier.store}")
                continue
            self.failures.recovered(f"vector store {tier.store}")
            answer.scores = scores
            answer.embedding_source = embedder.source
            answer.vector_store = tier.store
            return answer
        answer.reasons.append("keyword only")
        return answer

    def _embed_lazily(self, maintenance: VectorMaintenance, who: OwnerFilter) -> None:
        """Memories written before an embedder existed (or by a process without one) get
        their vectors at query time, a bounded batch per query. A failure only means those
        memories are not scored by meaning this time."""
        lazy = LAZY_BATCH_REMOTE if maintenance.embedder.source == "remote" else LAZY_BATCH_LOCAL
        try:
            for owner in who.owners:
                version = self.rows.observed_version(owner)
                if self._settled.get(owner) == version:
                    continue
                if maintenance.embed_pending(owner, lazy) == 0:
                    if len(self._settled) >= _SETTLED_OWNERS:
                        self._settled.clear()
                    self._settled[owner] = version
        except EngramError as exc:
            log.warning("pending memories were not embedded now: %s", exc.message)
            self.failures.failed("vectors", exc.message)
        else:
            self.failures.recovered("vectors")

    def active_store(self) -> str | None:
        """The store vector queries go to first now (None without an embedder: keyword
        only). engine-status reports it; ``dense`` asks the same ``_tiers``."""
        choice = self.embeddings.current()
        if choice.embedder is None:
            return None
        try:
            dim = choice.embedder.dim  # a remote embedder learns it by calling
        except EngramError:
            return None  # it cannot embed: queries go keyword only (see ``dense``)
        return self._tiers(dim, DenseAnswer(None))[0].store

    def _tiers(self, dim: int, answer: DenseAnswer) -> list[VectorTier]:
        tiers = [self.libsql_tier(dim)]
        qdrant = self.qdrant.tier()
        if qdrant is not None:
            return [qdrant, *tiers]
        skipped = self.qdrant.skipped() if self.qdrant.primary() else None
        if skipped:
            answer.reasons.append(skipped)
        return tiers

    # -- maintenance ---------------------------------------------------------------------

    def _mirror(self, seqs: list[int], vectors: Vectors) -> None:
        """Write freshly stored vectors into Qdrant too, when it is enabled."""
        if self.qdrant.store() is None:
            return
        order = {seq: i for i, seq in enumerate(seqs)}
        rows = sorted(self.rows.memories(seqs), key=lambda row: order[row[0]])
        self.qdrant.mirror([memory for _, memory in rows], vectors)

    def process_embedding(self, job: EmbeddingJob) -> int:
        """Embed the job's memories if they still need it (idempotent by construction): the
        job's own first (older pending memories must not hold them back), then a few more
        of the owner's. With Qdrant enabled every memory of the job gets its point, also
        one that another path embedded first (retrieval's lazy pass, a reindex)."""
        maintenance, reason = self._maintenance()
        if maintenance is not None:
            maintenance, reason = self._in_step(maintenance)
        if maintenance is None:  # left pending for a process that can (lazily, reindex)
            log.info("embedding job %s skipped: %s", job.request_id, reason)
            return 0
        mirrored: set[int] = set()

        def on_stored(seqs: list[int], vectors: Vectors) -> None:
            mirrored.update(seqs)
            self._mirror(seqs, vectors)

        owner, ids = job.api_key_id, job.memory_ids
        stored = maintenance.embed_pending(owner, len(ids), on_stored, ids=ids)
        stored += maintenance.embed_pending(owner, 64, on_stored)
        self.qdrant.mirror_stored(owner, ids, maintenance.embedder.dim, skip=mirrored)
        return stored

    def reindex(
        self, force: bool = False, max_seconds: float = 2.0, target: str = "libsql"
    ) -> ReindexResult:
        """Embed pending memories for up to ``max_seconds``; ``force`` re-embeds all;
        ``target="qdrant"`` copies the stored vectors into the Qdrant collection."""
        if target == "qdrant":
            return self._backfill_qdrant(max_seconds)
        maintenance, reason = self._maintenance()
        if maintenance is not None:
            maintenance, reason = self._in_step(maintenance)
        if maintenance is None:
            return ReindexResult(started=False, pending=self.rows.pending_count(), reason=reason)
        if force:
            self.rows.mark_all_pending()
        processed = maintenance.reindex(max_seconds, on_stored=self._mirror)
        return ReindexResult(started=True, pending=self.rows.pending_count(), processed=processed)

    def start_reindex(self, request: ReindexRequest) -> tuple[ReindexResult, float]:
        """A reindex asked for by a caller: one short batch now, and how many seconds the
        rest may go on in the background (0: leave it to the reindex schedule)."""
        result = self.reindex(force=request.force, max_seconds=2.0, target=request.target)
        more = self.background_s if result.started and result.pending else 0.0
        return result, more

    def _backfill_qdrant(self, max_seconds: float, batch: int = 256) -> ReindexResult:
        """Write every memory that has a vector into Qdrant (idempotent upserts)."""
        store = self.qdrant.store()
        maintenance, reason = self._maintenance()
        if store is None or maintenance is None:
            why = "qdrant is not enabled" if store is None else reason
            return ReindexResult(started=False, pending=0, reason=why)
        dim = maintenance.embedder.dim
        deadline = time.monotonic() + max_seconds
        cursor = processed = 0
        while time.monotonic() < deadline:
            rows = self.rows.embedded_after(cursor, batch, dim)
            if not rows:
                break
            found = [(memory, vector) for _, memory, vector in rows if vector is not None]
            if found:
                try:
                    self.qdrant.write([m for m, _ in found], np.stack([v for _, v in found]))
                except DimensionMismatch as exc:  # the settings disagree with the collection
                    return ReindexResult(started=False, pending=0, reason=exc.message)
            processed += len(found)
            cursor = rows[-1][0]
        total = self.rows.embedded_count()
        return ReindexResult(
            started=True, pending=max(total - store.count(), 0), processed=processed
        )
