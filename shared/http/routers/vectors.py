"""Maintenance: reindex (progress is in GET /api/memory/engine-status) and summarize."""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks

from engram.domain.models import ReindexRequest, ReindexResult, SummarizeRequest, SummarizeResult

from ..deps import AdminAuth, EngineDep
from ..schemas import MANAGEMENT_ERRORS

router = APIRouter(
    prefix="/api/memory", tags=["engine"], dependencies=[AdminAuth], responses=MANAGEMENT_ERRORS
)


@router.post("/reindex", response_model=ReindexResult)
def reindex(body: ReindexRequest, engine: EngineDep, background: BackgroundTasks) -> ReindexResult:
    """Embed memories waiting for a vector (``force``: all of them), a batch now and the
    rest in the background; ``pending`` counts what is left when this answers."""
    result, more_s = engine.vectors.start_reindex(body)
    if more_s > 0:
        background.add_task(engine.vectors.reindex, False, more_s, body.target)
    return result


@router.post("/summarize", response_model=SummarizeResult)
def summarize(body: SummarizeRequest, engine: EngineDep) -> SummarizeResult:
    """Fold memories older than ``olderThanDays`` into summary memories (one typed line
    each) and delete the originals; ``dryRun`` (the default) only reports."""
    return engine.maintenance.summarize_older_than(body)
