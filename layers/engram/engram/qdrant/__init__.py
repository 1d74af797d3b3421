"""The optional Qdrant vector tier (for deployments whose vectors outgrow libSQL)."""

from .service import QdrantService, QdrantTier, payload_of
from .settings import (
    QdrantSettings,
    QdrantSettingsPublic,
    QdrantSettingsStore,
    QdrantSettingsUpdate,
)
from .store import MAX_TOP_K, DimensionMismatch, QdrantHealth, QdrantHit, QdrantStore

__all__ = [
    "MAX_TOP_K",
    "DimensionMismatch",
    "QdrantHealth",
    "QdrantHit",
    "QdrantService",
    "QdrantSettings",
    "QdrantSettingsPublic",
    "QdrantSettingsStore",
    "QdrantSettingsUpdate",
    "QdrantStore",
    "QdrantTier",
    "payload_of",
]
