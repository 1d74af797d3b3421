"""Bulk import (JSON array or NDJSON) and streamed NDJSON export.

Import is all or nothing: every item is validated first and every problem is
reported; only a fully valid batch is written, in one transaction. It is
idempotent by ``(apiKeyId, key)``, and an export imported into an empty
database exports back byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import ConfigDict, ValidationError

from engram import InvalidInputError
from engram.domain.models import ApiModel, MemoryImport
from engram.domain.models.common import ApiKeyId

from ..deps import AdminAuth, EngineDep
from ..limits import NDJSON, is_json, strict_loads
from ..schemas import MANAGEMENT_ERRORS, ImportResult, errors

router = APIRouter(
    prefix="/api/memory", tags=["bulk"], dependencies=[AdminAuth], responses=MANAGEMENT_ERRORS
)

MAX_IMPORT_ITEMS = 10_000
_MAX_REPORTED = 100
# One thing to fix: the item (array index or NDJSON line), the field, what is wrong.
Problem = dict[str, Any]


class ExportQuery(ApiModel):
    model_config = ConfigDict(extra="forbid")

    api_key_id: ApiKeyId | None = None


def _parse(raw: bytes, content_type: str) -> tuple[list[tuple[int, Any]], list[Problem]]:
    """(index, decoded JSON) per item (array positions, or 0-based NDJSON line numbers),
    and the NDJSON lines that are not JSON: reported with the items' own problems, so one
    answer lists everything to fix."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError("the body is not UTF-8 text") from exc
    media = content_type.split(";")[0].strip().lower()
    is_array = (media and is_json(media)) or (media != NDJSON and text.lstrip().startswith("["))
    if is_array:
        try:
            data = strict_loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"the body is not valid JSON: {exc.msg}") from exc
        except ValueError as exc:
            raise InvalidInputError(f"the body is not acceptable JSON: {exc}") from exc
        if not isinstance(data, list):
            raise InvalidInputError("a JSON import must be an array of memories")
        return list(enumerate(data)), []
    items: list[tuple[int, Any]] = []
    unreadable: list[Problem] = []
    # Lines end with "\n" (export's), optionally "\r\n"; not str.splitlines(), which also
    # breaks at U+2028, U+0085 and the other separators a memory's text may hold.
    for index, line in enumerate(text.split("\n")):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            items.append((index, strict_loads(line)))
        except json.JSONDecodeError as exc:
            unreadable.append({"index": index, "field": None, "message": f"not JSON: {exc.msg}"})
        except ValueError as exc:
            unreadable.append({"index": index, "field": None, "message": f"not acceptable: {exc}"})
    return items, unreadable


def _validate(items: list[tuple[int, Any]], unreadable: list[Problem]) -> list[MemoryImport]:
    valid: list[MemoryImport] = []
    problems = list(unreadable)
    for index, item in items:
        try:
            valid.append(MemoryImport.model_validate(item))
        except ValidationError as exc:
            for error in exc.errors():
                field = ".".join(str(p) for p in error["loc"]) or None
                problems.append({"index": index, "field": field, "message": error["msg"]})
    if problems:
        problems.sort(key=lambda p: p["index"])
        bad = len({p["index"] for p in problems})
        total = len(items) + len(unreadable)
        raise InvalidInputError(
            f"{bad} of {total} item(s) are invalid; nothing was imported",
            details=problems[:_MAX_REPORTED],
        )
    return valid


@router.post(
    "/import",
    response_model=ImportResult,
    responses=errors(409),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": MAX_IMPORT_ITEMS,
                        "items": {"$ref": "#/components/schemas/MemoryImport"},
                    }
                },
            },
        }
    },
)
async def import_memories(request: Request, engine: EngineDep) -> ImportResult:
    """Memories as exported, upserted by ``(apiKeyId, key)``: a JSON array, or the same
    objects one per line with ``Content-Type: application/x-ndjson`` (what export
    writes). All or nothing: every invalid item is reported by index, none is written."""
    raw = await request.body()  # at most ENGRAM_MAX_IMPORT_BYTES: the app's BodyLimits saw to it
    items, unreadable = _parse(raw, request.headers.get("content-type", ""))
    if not items and not unreadable:
        raise InvalidInputError("the import holds no memories")
    if len(items) + len(unreadable) > MAX_IMPORT_ITEMS:
        raise InvalidInputError(f"an import is limited to {MAX_IMPORT_ITEMS} memories")
    valid = _validate(items, unreadable)
    outcomes = await run_in_threadpool(engine.memory.import_many, list(valid))
    created = sum(1 for o in outcomes if o.created)
    return ImportResult(received=len(valid), created=created, updated=len(valid) - created)


@router.get(
    "/export",
    response_class=StreamingResponse,
    responses={200: {"content": {NDJSON: {}}, "description": "one memory per line"}},
)
def export_memories(query: Annotated[ExportQuery, Query()], engine: EngineDep) -> StreamingResponse:
    """Live memories of one key (or all), oldest first, one JSON object per line."""

    def lines() -> Iterator[bytes]:
        for memory in engine.memory.export(query.api_key_id):
            yield memory.model_dump_json().encode("utf-8") + b"\n"

    return StreamingResponse(lines(), media_type=NDJSON)
