"""Qdrant tier settings and operations. The API key is write-only: never returned."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import ConfigDict, Field, StrictBool

from engram.domain.models import (
    ApiModel,
    EmbeddingProvider,
    QdrantHealth,
    QdrantSettingsPublic,
    QdrantSettingsUpdate,
)
from engram.domain.models.common import JSON_INT, ApiKeyId

from ..deps import AdminAuth, EngineDep
from ..schemas import MANAGEMENT_ERRORS, errors

router = APIRouter(
    prefix="/api/settings/qdrant",
    tags=["qdrant"],
    dependencies=[AdminAuth],
    responses=MANAGEMENT_ERRORS,
)


class QdrantSearchRequest(ApiModel):
    model_config = ConfigDict(extra="forbid")

    query: Annotated[str, Field(min_length=1, max_length=4000)]
    top_k: Annotated[int, Field(ge=1, le=1000), JSON_INT] = 10
    api_key_id: ApiKeyId | None = Field(None, description="Whose points; every key when omitted")


class QdrantSearchHit(ApiModel):
    memory_id: str
    score: float
    api_key_id: str | None
    key: str | None
    content: str | None


class QdrantCleanupRequest(ApiModel):
    model_config = ConfigDict(extra="forbid")

    dry_run: StrictBool = False


class QdrantCleanupResult(ApiModel):
    count: int = Field(description="Points expired or past retention (removed unless dry run)")
    dry_run: bool


@router.get("", response_model=QdrantSettingsPublic)
def get_qdrant_settings(engine: EngineDep) -> QdrantSettingsPublic:
    return QdrantSettingsPublic.of(engine.qdrant.current())


@router.put("", response_model=QdrantSettingsPublic)
def put_qdrant_settings(body: QdrantSettingsUpdate, engine: EngineDep) -> QdrantSettingsPublic:
    """Enabling makes Qdrant the primary vector store; disabling resets it to ``auto``."""
    return QdrantSettingsPublic.of(engine.qdrant.update(body))


@router.get("/health", response_model=QdrantHealth)
def qdrant_health(engine: EngineDep) -> QdrantHealth:
    return engine.qdrant.health()


@router.post("/search", response_model=list[QdrantSearchHit], responses=errors(409))
def qdrant_search(body: QdrantSearchRequest, engine: EngineDep) -> list[QdrantSearchHit]:
    """A test search: the query embedded as retrieval would, ``topK`` clamped to [1, 20]."""
    hits = engine.qdrant.search(body.query, body.top_k, body.api_key_id)
    return [
        QdrantSearchHit(
            memory_id=h.memory_id,
            score=h.score,
            api_key_id=h.payload.get("apiKeyId"),
            key=h.payload.get("key"),
            content=h.payload.get("content"),
        )
        for h in hits
    ]


@router.post("/cleanup", response_model=QdrantCleanupResult, responses=errors(409))
def qdrant_cleanup(body: QdrantCleanupRequest, engine: EngineDep) -> QdrantCleanupResult:
    """Points expired or older than the retention: counted, then deleted."""
    return QdrantCleanupResult(count=engine.qdrant.cleanup(body.dry_run), dry_run=body.dry_run)


@router.get("/embedding-models", response_model=list[EmbeddingProvider])
def qdrant_embedding_models(engine: EngineDep) -> list[EmbeddingProvider]:
    """The embedders that can fill the collection now (its dimension follows the first)."""
    return [p for p in engine.status.embedding_providers() if p.available]
