"""Shared field types and the base model of everything that crosses the API."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainSerializer
from pydantic.alias_generators import to_camel

__all__ = [
    "DAY_MS",
    "GLOBAL_OWNER",
    "MAX_CONTENT_BYTES",
    "MAX_METADATA_BYTES",
    "ApiKeyId",
    "ApiModel",
    "Content",
    "MemoryKey",
    "MemoryType",
    "Metadata",
    "Scope",
    "SessionId",
    "Strategy",
    "UtcDatetime",
    "from_millis",
    "to_millis",
]

# The owner id of global memories: visible to every key, owned by none. "*" cannot be
# an API key id, so no key can ever own (or overwrite) a global memory by accident.
GLOBAL_OWNER = "*"
DAY_MS = 86_400_000  # times are epoch milliseconds everywhere
MAX_CONTENT_BYTES = 8 * 1024
MAX_METADATA_BYTES = 16 * 1024


class ApiModel(BaseModel):
    """camelCase on the wire, snake_case in Python."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class MemoryType(StrEnum):
    FACTUAL = "factual"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"
    SEMANTIC = "semantic"


class Scope(StrEnum):
    SESSION = "session"
    API_KEY = "apiKey"
    GLOBAL = "global"


class Strategy(StrEnum):
    EXACT = "exact"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"


def _as_utc(value: datetime) -> datetime:
    # Naive datetimes are taken as UTC: the engine stores and compares UTC only.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


UtcDatetime = Annotated[
    datetime, AfterValidator(_as_utc), PlainSerializer(_iso, return_type=str, when_used="json")
]


def to_millis(value: datetime) -> int:
    return int(_as_utc(value).timestamp() * 1000)


def from_millis(value: int) -> datetime:
    return datetime.fromtimestamp(value / 1000, tz=UTC)


def _check_content(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("content must not be empty")
    if len(value.encode("utf-8")) > MAX_CONTENT_BYTES:
        raise ValueError(f"content is larger than {MAX_CONTENT_BYTES} bytes")
    return value


def _check_metadata(value: dict[str, Any]) -> dict[str, Any]:
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > MAX_METADATA_BYTES:
        raise ValueError(f"metadata is larger than {MAX_METADATA_BYTES} bytes as JSON")
    return value


def _check_printable(value: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise ValueError("must not contain control characters")
    return value


ApiKeyId = Annotated[
    str,
    Field(min_length=1, max_length=128, pattern=r"^(\*|[A-Za-z0-9][A-Za-z0-9_.:@-]*)$"),
]
SessionId = Annotated[str, Field(min_length=1, max_length=128), AfterValidator(_check_printable)]


def _clean_key(value: str) -> str:
    value = _check_printable(value.strip())
    if not value:
        raise ValueError("key must not be blank")
    return value


MemoryKey = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_clean_key)]
Content = Annotated[str, AfterValidator(_check_content)]
Metadata = Annotated[dict[str, Any], AfterValidator(_check_metadata)]
