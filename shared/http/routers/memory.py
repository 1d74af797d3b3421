"""Memories: list, create (upsert by key), get, update, delete, forget in bulk, the history
of a fact, and the health probe.

Every call goes through ``engine.memory``, the gateway: list, create, get, update and
delete reach the primary backend (and its fallbacks); stats, forgetting, history, pins
and the health probe are libSQL's (``engram.app.routing.WHERE`` says which is which)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from engram import NotFoundError
from engram.domain.models import (
    ForgetOutcome,
    HealthReport,
    Memory,
    MemoryCreate,
    MemoryForget,
    MemoryHistory,
    MemoryPin,
    MemoryQuery,
    MemoryUpdate,
)

from ..deps import AdminAuth, EngineDep
from ..schemas import MANAGEMENT_ERRORS, ForgetQuery, MemoryListResponse, StatsSummary, errors

router = APIRouter(
    prefix="/api/memory", tags=["memory"], dependencies=[AdminAuth], responses=MANAGEMENT_ERRORS
)


# A created memory's id leads to reading, changing and deleting it (stateful testing).
_MEMORY_LINKS = {
    name: {"operationId": operation, "parameters": {"memory_id": "$response.body#/id"}}
    for name, operation in (
        ("GetMemory", "getMemory"),
        ("GetMemoryHistory", "getMemoryHistory"),
        ("UpdateMemory", "updateMemory"),
        ("PinMemory", "pinMemory"),
        ("DeleteMemory", "deleteMemory"),
    )
}


def _missing(memory_id: str) -> NotFoundError:
    return NotFoundError(f"no memory with id {memory_id}", field="id")


@router.get("/health", response_model=HealthReport)
def health(engine: EngineDep) -> HealthReport:
    """Create -> list -> delete a probe memory; reports whether storage works."""
    return engine.memory.health()


@router.get("", response_model=MemoryListResponse)
def list_memories(query: Annotated[MemoryQuery, Query()], engine: EngineDep) -> MemoryListResponse:
    page = engine.memory.list_page(query)
    stats = engine.memory.stats(query.api_key_id)
    return MemoryListResponse(
        **page.model_dump(by_alias=False),
        stats=StatsSummary(
            total=stats.total, tokens_used=stats.tokens_used, hit_rate=stats.hit_rate
        ),
    )


@router.post(
    "",
    status_code=201,
    response_model=Memory,
    responses={
        200: {"model": Memory, "description": "An existing (apiKeyId, key) was updated"},
        201: {"links": _MEMORY_LINKS},
        **errors(409),
    },
)
def create_memory(body: MemoryCreate, engine: EngineDep, response: Response) -> Memory:
    outcome = engine.memory.create(body)
    if not outcome.created:
        response.status_code = 200
    return outcome.memory


@router.delete("", response_model=ForgetOutcome, operation_id="forgetMemories")
def forget_memories(query: Annotated[ForgetQuery, Query()], engine: EngineDep) -> ForgetOutcome:
    """Forget a key's memories: all of them, or those of a session, of a type, or last
    written more than ``olderThanDays`` ago (filters combine). Their retired versions go
    too, and nothing of them is left in any index, vector store or cache. ``dryRun=true``
    counts first and changes nothing."""
    request = MemoryForget.model_validate(query.model_dump())
    return engine.memory.forget(request)


@router.get(
    "/{memory_id}/history",
    response_model=MemoryHistory,
    responses=errors(404),
    operation_id="getMemoryHistory",
)
def memory_history(memory_id: str, engine: EngineDep) -> MemoryHistory:
    """Every version of the fact this memory belongs to, newest first: the live one, and
    the ones later statements superseded or withdrew (with ``validFrom``/``validTo`` and
    ``supersededBy``). A retired memory's id works too."""
    history = engine.memory.history(memory_id)
    if history is None:
        raise _missing(memory_id)
    return history


@router.get("/{memory_id}", response_model=Memory, responses=errors(404), operation_id="getMemory")
def get_memory(memory_id: str, engine: EngineDep) -> Memory:
    memory = engine.memory.get(memory_id)
    if memory is None:
        raise _missing(memory_id)
    return memory


@router.put(
    "/{memory_id}",
    response_model=Memory,
    responses=errors(404, 409),
    operation_id="updateMemory",
)
def update_memory(memory_id: str, body: MemoryUpdate, engine: EngineDep) -> Memory:
    memory = engine.memory.update(memory_id, body)
    if memory is None:
        raise _missing(memory_id)
    return memory


@router.put(
    "/{memory_id}/pin", response_model=Memory, responses=errors(404), operation_id="pinMemory"
)
def pin_memory(memory_id: str, body: MemoryPin, engine: EngineDep) -> Memory:
    """Pin a memory into the profile (``pinned: true``: injected with every request),
    keep it out of it (``false``: recalled only when relevant), or let its category
    decide again (``null``). The memory comes back with ``profile`` as it now is."""
    memory = engine.memory.pin(memory_id, body.pinned)
    if memory is None:
        raise _missing(memory_id)
    return memory


@router.delete("/{memory_id}", status_code=204, responses=errors(404), operation_id="deleteMemory")
def delete_memory(memory_id: str, engine: EngineDep) -> Response:
    if not engine.memory.delete(memory_id):
        raise _missing(memory_id)
    return Response(status_code=204)
