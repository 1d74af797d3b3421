"""The retrieval preview: what the chat path would retrieve, without injecting anything."""

from __future__ import annotations

from fastapi import APIRouter

from engram.models import RetrievalRequest, RetrievalResult

from ..deps import AdminAuth, EngineDep
from ..schemas import PreviewRequest

router = APIRouter(prefix="/api/memory", tags=["retrieval"], dependencies=[AdminAuth])


@router.post("/retrieve-preview", response_model=RetrievalResult)
def retrieve_preview(body: PreviewRequest, engine: EngineDep) -> RetrievalResult:
    """A dry run: nothing is injected or changed, except the hit-rate counters."""
    request = RetrievalRequest.model_validate(
        body.model_dump(by_alias=False, exclude={"api_key_id"}, exclude_unset=True)
    )
    return engine.retrieve(body.api_key_id, request)
