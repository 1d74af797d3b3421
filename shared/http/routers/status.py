"""What the engine can do right now: tiers, embedding sources, vector store."""

from __future__ import annotations

from fastapi import APIRouter

from engram.domain.models import EmbeddingProvider, EngineStatus

from ..deps import AdminAuth, EngineDep
from ..schemas import MANAGEMENT_ERRORS

router = APIRouter(
    prefix="/api/memory", tags=["engine"], dependencies=[AdminAuth], responses=MANAGEMENT_ERRORS
)


@router.get("/engine-status", response_model=EngineStatus)
def engine_status(engine: EngineDep) -> EngineStatus:
    return engine.status.report()


@router.get("/embedding-providers", response_model=list[EmbeddingProvider])
def embedding_providers(engine: EngineDep) -> list[EmbeddingProvider]:
    return engine.status.embedding_providers()
