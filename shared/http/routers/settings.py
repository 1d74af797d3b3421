"""Stored memory settings: validated, cached by the engine, credentials never echoed."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from engram import MemorySettings, MemorySettingsUpdate
from engram.domain.models.backends import BackendStatus

from ..deps import AdminAuth, EngineDep
from ..schemas import MANAGEMENT_ERRORS, errors

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


@router.post(
    "/backends/{name}/test",
    response_model=BackendStatus,
    responses=errors(404),
    operation_id="testMemoryBackend",
)
def test_backend(
    name: Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,64}$")], engine: EngineDep
) -> BackendStatus:
    """Build the memory backend ``name`` from the stored settings and probe it: whether it
    answers, how fast, and why not (an unreachable or refusing backend is reported here,
    with status 200; an unknown name is 404). Credentials are never part of the answer."""
    return engine.backends.test(name)
