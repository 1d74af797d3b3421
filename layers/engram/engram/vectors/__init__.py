"""Vectors in libSQL, searched with numpy over per-owner matrices cached in memory."""

from .index import IndexCache, OwnerIndex
from .tier import LibsqlVectorTier, VectorMaintenance, signature_of

__all__ = ["IndexCache", "LibsqlVectorTier", "OwnerIndex", "VectorMaintenance", "signature_of"]
