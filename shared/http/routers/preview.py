"""The retrieval preview: what the chat path would retrieve, read-only."""

from __future__ import annotations

from fastapi import APIRouter

from engram.domain.models import PreviewRequest as ChatPreview
from engram.domain.models import PreviewResult

from ..deps import AdminAuth, EngineDep
from ..schemas import MANAGEMENT_ERRORS, PreviewRequest

router = APIRouter(
    prefix="/api/memory", tags=["retrieval"], dependencies=[AdminAuth], responses=MANAGEMENT_ERRORS
)


@router.post("/retrieve-preview", response_model=PreviewResult)
def retrieve_preview(body: PreviewRequest, engine: EngineDep) -> PreviewResult:
    """A dry run of the chat path's retrieval for one API key: the same ranking, tiers and
    budget, with each result's scores and how it was found (``resolution``).

    Read-only: nothing is injected, stored or counted (the hit rate does not move), and no
    vector is computed for the memories still waiting for one; those are ranked on
    keywords alone until the embedding worker or a reindex has stored their vectors.

    ``injection.messages`` are the messages the upstream would receive: ``messages``
    (or the query as one user message) with the memories injected for the provider of
    ``model``, by ``injectionMode`` (default: the settings').
    The primary memory backend answers; when it fails, the next fallback does, and
    ``resolution.backend`` / ``backendFailures`` say which answered and why the others
    did not.
    """
    request = ChatPreview.model_validate(
        body.model_dump(by_alias=False, exclude={"api_key_id"}, exclude_unset=True)
    )
    return engine.chat.preview(body.api_key_id, request)
