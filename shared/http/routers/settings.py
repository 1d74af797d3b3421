"""Stored memory settings: validated, clamped, cached by the engine."""

from __future__ import annotations

from fastapi import APIRouter

from engram import MemorySettings, MemorySettingsUpdate

from ..deps import AdminAuth, EngineDep
from ..schemas import MANAGEMENT_ERRORS

router = APIRouter(
    prefix="/api/settings", tags=["settings"], dependencies=[AdminAuth], responses=MANAGEMENT_ERRORS
)


@router.get("/memory", response_model=MemorySettings)
def get_memory_settings(engine: EngineDep) -> MemorySettings:
    return engine.settings.get()


@router.put("/memory", response_model=MemorySettings)
def put_memory_settings(body: MemorySettingsUpdate, engine: EngineDep) -> MemorySettings:
    """Only the fields sent change; out-of-range numbers are clamped, unknown fields refused."""
    return engine.settings.update(body)
