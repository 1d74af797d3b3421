"""Vector maintenance: reindex (progress is in GET /api/memory/engine-status)."""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks, Request

from engram.models import ReindexRequest, ReindexResult

from ..deps import AdminAuth, EngineDep

router = APIRouter(prefix="/api/memory", tags=["engine"], dependencies=[AdminAuth])


@router.post("/reindex", response_model=ReindexResult)
def reindex(
    body: ReindexRequest, engine: EngineDep, request: Request, background: BackgroundTasks
) -> ReindexResult:
    """Embed memories waiting for a vector (``force``: all of them), a batch now and the
    rest in the background; ``pending`` counts what is left when this answers."""
    result = engine.reindex(force=body.force, max_seconds=2.0)
    more = request.app.state.config.reindex_background_s
    if result.started and result.pending and more > 0:
        background.add_task(engine.reindex, False, more)
    return result
