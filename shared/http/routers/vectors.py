"""Maintenance: reindex (progress is in GET /api/memory/engine-status) and summarize."""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks, Request

from engram.models import ReindexRequest, ReindexResult, SummarizeRequest, SummarizeResult

from ..deps import AdminAuth, EngineDep

router = APIRouter(prefix="/api/memory", tags=["engine"], dependencies=[AdminAuth])


@router.post("/reindex", response_model=ReindexResult)
def reindex(
    body: ReindexRequest, engine: EngineDep, request: Request, background: BackgroundTasks
) -> ReindexResult:
    """Embed memories waiting for a vector (``force``: all of them), a batch now and the
    rest in the background; ``pending`` counts what is left when this answers."""
    result = engine.reindex(force=body.force, max_seconds=2.0, target=body.target)
    more = request.app.state.config.reindex_background_s
    if result.started and result.pending and more > 0:
        background.add_task(engine.reindex, False, more, body.target)
    return result


@router.post("/summarize", response_model=SummarizeResult)
def summarize(body: SummarizeRequest, engine: EngineDep) -> SummarizeResult:
    """Fold memories older than ``olderThanDays`` into summary memories (one typed line
    each) and delete the originals; ``dryRun`` (the default) only reports."""
    return engine.maintenance.summarize_older_than(body)
