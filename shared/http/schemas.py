"""HTTP-only envelopes. Resource bodies are the engine's own models."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from engram.domain.models import ApiModel, MemoryForget, MemoryPage
from engram.domain.models import PreviewRequest as ChatPreview
from engram.domain.models.common import ApiKeyId

__all__ = [
    "MANAGEMENT_ERRORS",
    "ErrorBody",
    "ErrorInfo",
    "ForgetQuery",
    "ImportResult",
    "MemoryListResponse",
    "PreviewRequest",
    "StatsSummary",
    "errors",
]


class ErrorInfo(BaseModel):
    message: str
    type: str
    param: str | None = Field(None, description="The offending field, when there is one")
    code: str | None = None
    details: list[dict[str, Any]] | None = Field(
        None, description="Every problem of the request (per item for an import)"
    )


class ErrorBody(BaseModel):
    """Every error, OpenAI's shape: chat clients and management clients parse one thing."""

    error: ErrorInfo


_WHY = {
    400: "Malformed JSON, or JSON Engram refuses (too deep, NaN, huge numbers, bad Unicode)",
    401: "Missing or invalid credentials",
    404: "No such resource (for this owner)",
    409: "The request conflicts with stored state",
    413: "The request body is larger than the limit",
    422: "A field is invalid; `param` names it",
    502: "The upstream provider could not be reached",
    503: "Storage or a required tier is unavailable",
    504: "The upstream provider did not answer in time",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI responses for the error statuses a route can answer."""
    return {status: {"model": ErrorBody, "description": _WHY[status]} for status in statuses}


def _query_bool(value: Any) -> Any:
    # A query string is text: "true"/"false" (or 1/0) only, never "yes" or "on".
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise ValueError("must be true or false")
    return value


QueryBool = Annotated[bool, BeforeValidator(_query_bool), WithJsonSchema({"type": "boolean"})]


class ForgetQuery(MemoryForget):
    """``DELETE /api/memory``'s query: ``MemoryForget`` with ``dryRun`` read from text."""

    dry_run: QueryBool = Field(False, description="Count what would be forgotten, change nothing")


class StatsSummary(ApiModel):
    total: int
    tokens_used: int
    hit_rate: float


class MemoryListResponse(MemoryPage):
    stats: StatsSummary


class PreviewRequest(ChatPreview):
    """A retrieval to simulate: whose memories, the usual retrieval options, and the
    chat request to show with the memories injected."""

    model_config = ConfigDict(extra="forbid")

    api_key_id: ApiKeyId


class ImportResult(ApiModel):
    received: int
    created: int
    updated: int


# What any management route can answer besides its own result: a refused body, bad or
# missing credentials, an invalid field, storage down.
MANAGEMENT_ERRORS = errors(400, 401, 413, 422, 503)
