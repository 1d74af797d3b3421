"""Qdrant tier settings and operations. The API key is write-only: never returned."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import ConfigDict, Field

from engram import MemorySettingsUpdate
from engram.models import ApiModel, EmbeddingProvider
from engram.models.common import ApiKeyId
from engram.qdrant import QdrantSettingsPublic, QdrantSettingsUpdate

from ..deps import AdminAuth, EngineDep

router = APIRouter(prefix="/api/settings/qdrant", tags=["qdrant"], dependencies=[AdminAuth])


class QdrantHealthBody(ApiModel):
    ok: bool
    latency_ms: float
    points: int | None = None
    dimension: int | None = None
    error: str | None = None


class QdrantSearchRequest(ApiModel):
    model_config = ConfigDict(extra="forbid")

    query: Annotated[str, Field(min_length=1, max_length=4000)]
    top_k: Annotated[int, Field(ge=1, le=1000)] = 10
    api_key_id: ApiKeyId | None = Field(None, description="Whose points; every key when omitted")


class QdrantSearchHit(ApiModel):
    memory_id: str
    score: float
    api_key_id: str | None
    key: str | None
    content: str | None


class QdrantCleanupRequest(ApiModel):
    model_config = ConfigDict(extra="forbid")

    dry_run: bool = False


class QdrantCleanupResult(ApiModel):
    count: int = Field(description="Points expired or past retention (removed unless dry run)")
    dry_run: bool


@router.get("", response_model=QdrantSettingsPublic)
def get_qdrant_settings(engine: EngineDep) -> QdrantSettingsPublic:
    return QdrantSettingsPublic.of(engine.qdrant.current())


@router.put("", response_model=QdrantSettingsPublic)
def put_qdrant_settings(body: QdrantSettingsUpdate, engine: EngineDep) -> QdrantSettingsPublic:
    """Enabling makes Qdrant the primary vector store; disabling resets it to ``auto``."""
    updated = engine.qdrant.update(body, engine.now_ms())
    if "enabled" in body.model_fields_set:
        store = "qdrant" if updated.enabled else "auto"
        engine.update_settings(MemorySettingsUpdate(vector_store=store))
    return QdrantSettingsPublic.of(updated)


@router.get("/health", response_model=QdrantHealthBody)
def qdrant_health(engine: EngineDep) -> QdrantHealthBody:
    store = engine.qdrant.store()
    if store is None:
        return QdrantHealthBody(ok=False, latency_ms=0.0, error="qdrant is not enabled")
    health = store.health()
    return QdrantHealthBody(**health.__dict__)


@router.post("/search", response_model=list[QdrantSearchHit])
def qdrant_search(body: QdrantSearchRequest, engine: EngineDep) -> list[QdrantSearchHit]:
    """A test search: the query embedded as retrieval would, ``topK`` clamped to [1, 20]."""
    hits = engine.qdrant_search(body.query, body.top_k, body.api_key_id)
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


@router.post("/cleanup", response_model=QdrantCleanupResult)
def qdrant_cleanup(body: QdrantCleanupRequest, engine: EngineDep) -> QdrantCleanupResult:
    """Points expired or older than the retention: counted, then deleted."""
    return QdrantCleanupResult(count=engine.qdrant_cleanup(body.dry_run), dry_run=body.dry_run)


@router.get("/embedding-models", response_model=list[EmbeddingProvider])
def qdrant_embedding_models(engine: EngineDep) -> list[EmbeddingProvider]:
    """The embedders that can fill the collection now (its dimension follows the first)."""
    return [p for p in engine.embedding_providers() if p.available]
