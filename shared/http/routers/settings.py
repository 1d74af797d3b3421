"""Stored memory settings: validated, cached by the engine, credentials never echoed."""

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
    """The settings; backend credentials are write-only (``hasApiKey`` says one is set)."""
    return engine.settings.get().public()


@router.put("/memory", response_model=MemorySettings)
def put_memory_settings(body: MemorySettingsUpdate, engine: EngineDep) -> MemorySettings:
    """Only the fields sent change; out-of-range values and unknown fields are refused
    (422). A backend config sent back as read keeps its stored credential."""
    return engine.settings.update(body).public()
