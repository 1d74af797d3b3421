"""Shared field types and the base model of everything that crosses the API."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)
from pydantic.alias_generators import to_camel

__all__ = [
    "DAY_MS",
    "GLOBAL_OWNER",
    "INJECTION_MODES",
    "JSON_INT",
    "JSON_NUMBER",
    "MAX_CONTENT_CHARS",
    "MAX_METADATA_BYTES",
    "MAX_METADATA_DEPTH",
    "ApiKeyId",
    "ApiModel",
    "Content",
    "Credential",
    "InjectionMode",
    "KeyName",
    "MemoryKey",
    "MemoryType",
    "Metadata",
    "PartialUpdate",
    "Scope",
    "SessionId",
    "Strategy",
    "StrategyName",
    "UtcDatetime",
    "credential",
    "from_millis",
    "to_millis",
]

# The owner id of global memories: visible to every key, owned by none. "*" cannot be
# an API key id, so no key can ever own (or overwrite) a global memory by accident.
GLOBAL_OWNER = "*"
DAY_MS = 86_400_000  # times are epoch milliseconds everywhere
# Characters, not bytes: a limit the API's schema can state (maxLength) and clients can
# count. 8,192 characters is at most 32 KiB of UTF-8.
MAX_CONTENT_CHARS = 8 * 1024
MAX_METADATA_BYTES = 16 * 1024
# Deepest nesting of objects and arrays in metadata: what is stored must be read back,
# listed and exported by every JSON library, whose recursion limits start near 256.
MAX_METADATA_DEPTH = 32


class ApiModel(BaseModel):
    """camelCase on the wire, snake_case in Python."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class PartialUpdate(ApiModel):
    """A change to some fields: a field is either left out or given a value. ``null`` is
    refused for the fields not named in ``NULLABLE`` (where it means "clear"), and the
    JSON schema says so, so clients and fuzzers read the contract the server enforces."""

    NULLABLE: ClassVar[frozenset[str]] = frozenset()

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_null(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name not in cls.NULLABLE:
            raise ValueError("cannot be null (leave the field out to keep it)")
        return value

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> Any:
        schema = handler(core_schema)
        target = handler.resolve_ref_schema(schema)
        for name, field in cls.model_fields.items():
            if name in cls.NULLABLE:
                continue
            prop = target.get("properties", {}).get(field.alias or name)
            if prop and "anyOf" in prop:
                choices = [c for c in prop.pop("anyOf") if c.get("type") != "null"]
                prop.update(choices[0] if len(choices) == 1 else {"anyOf": choices})
                prop.pop("default", None)
        return schema


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


def _strategy(value: Any) -> Any:
    """The reference's vocabulary: any case, ``recent`` means exact, an unknown name
    means hybrid. Only text is read so: a number or a boolean stays an error."""
    if isinstance(value, str):
        if len(value) > 64:
            raise ValueError("a strategy name is at most 64 characters")
        value = value.strip().lower()
        if value == "recent":
            return Strategy.EXACT
        return value if value in {s.value for s in Strategy} else Strategy.HYBRID
    return value


# A retrieval strategy as every surface accepts it (settings, the retrieval preview, the
# chat proxy's x-engram-strategy header): one vocabulary, one meaning.
StrategyName = Annotated[
    Strategy,
    BeforeValidator(_strategy),
    WithJsonSchema(
        {
            "type": "string",
            "maxLength": 64,
            "description": "exact, semantic or hybrid, any case (recent = exact;"
            " any other name = hybrid)",
        },
        mode="validation",
    ),
]

# How memories join a chat request: ``prepend`` a system message of their own (before
# the application's), or ``cacheSafe``: merged into the application's first system
# message, so the prompt prefix providers cache stays the same across requests.
InjectionMode = Literal["prepend", "cacheSafe"]
INJECTION_MODES: tuple[InjectionMode, ...] = ("prepend", "cacheSafe")


def _as_utc(value: datetime) -> datetime:
    # Naive datetimes are taken as UTC: the engine stores and compares UTC only.
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00-01:00 has no UTC time in year 1..9999
        raise ValueError("the date is out of range in UTC") from None


def _json_integer(value: Any) -> Any:
    """An integer as JSON writes it: 30 or 30.0, never "30" or true (a JSON body's numbers
    keep their type; query parameters, which are text, use plain ``int``)."""
    if isinstance(value, str | bool):
        raise ValueError("must be a JSON integer")
    return value


# Put after the field's constraints (``Annotated[int, Field(ge=1), JSON_INT]``): placed
# before them, pydantic would write the constraints into the JSON schema as ge/le.
JSON_INT = BeforeValidator(_json_integer)


def _json_number(value: Any) -> Any:
    """A number as JSON writes it: 0.3 or 1, never "0.3" or false."""
    if isinstance(value, str | bool):
        raise ValueError("must be a JSON number")
    return value


JSON_NUMBER = BeforeValidator(_json_number)


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _date_text(value: Any) -> Any:
    # JSON carries dates as ISO 8601 text; pydantic would also read a number as Unix time,
    # which the schema (format: date-time) does not allow and no caller means.
    if isinstance(value, int | float | bool):
        raise ValueError("must be an ISO 8601 date-time string")
    return value


UtcDatetime = Annotated[
    datetime,
    BeforeValidator(_date_text),
    AfterValidator(_as_utc),
    PlainSerializer(_iso, return_type=str, when_used="json"),
]


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


# Integer arithmetic, floored: a float's timestamp() * 1000 rounds
# 9999-12-31T23:59:59.999999Z up to year 10000, which no datetime can hold.
def to_millis(value: datetime) -> int:
    return (_as_utc(value) - _EPOCH) // _MS


def from_millis(value: int) -> datetime:
    return _EPOCH + value * _MS


def credential(value: str) -> str:
    """A key or token as it travels: in an HTTP header, which carries printable ASCII
    only. Refused on the way in, not by every request that would try to send it
    (``""`` stays: it removes the stored one)."""
    if value and not all("\x21" <= c <= "\x7e" for c in value):
        raise ValueError("must be printable ASCII without spaces (it is sent in an HTTP header)")
    return value


def _utf8(value: str, what: str) -> bytes:
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} holds an unpaired UTF-16 surrogate (not valid Unicode)") from None


def _check_content(value: str) -> str:
    if "\x00" in value:
        # SQLite's text functions stop at NUL: the rest would be stored, then lost on read.
        raise ValueError("content must not contain NUL characters")
    value = value.strip()
    if not value:
        raise ValueError("content must not be blank")
    _utf8(value, "content")
    return value


def _depth(value: Any) -> int:
    """Nesting depth of a JSON value, without recursion (deep input must not crash it)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in node)
    return deepest


def _check_metadata(value: dict[str, Any]) -> dict[str, Any]:
    if _depth(value) > MAX_METADATA_DEPTH:
        raise ValueError(f"metadata is nested deeper than {MAX_METADATA_DEPTH} levels")
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        raise ValueError("metadata holds a number that is not JSON (NaN or Infinity)") from None
    except TypeError:
        raise ValueError("metadata holds a value that is not JSON") from None
    if len(_utf8(text, "metadata")) > MAX_METADATA_BYTES:
        raise ValueError(f"metadata is larger than {MAX_METADATA_BYTES} bytes as JSON")
    return value


def _check_printable(value: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise ValueError("must not contain control characters")
    _utf8(value, "the text")
    return value


def _schema_pattern(pattern: str) -> dict[str, Any]:
    """A pattern stated in the API schema, enforced by the field's own validator (Python's
    regex and whitespace rules, not those of pydantic's Rust regex engine)."""
    return {"pattern": pattern}


# Text without control characters (the same rule as _check_printable), and text that is
# more than whitespace (str.strip's rule: Python's \s).
_PRINTABLE = "^[^\\u0000-\\u001f\\u007f]+$"
_NOT_BLANK_PRINTABLE = (
    "^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$"
)
# Python's \s also holds U+001C-U+001F and U+0085, which other regex engines (the fuzzers'
# among them) take for text: named, so the schema says what str.strip removes.
_NOT_BLANK_NO_NUL = "^[^\\u0000]*[^\\s\\u0000\\u001c-\\u001f\\u0085][^\\u0000]*$"

ApiKeyId = Annotated[
    str,
    Field(min_length=1, max_length=128, pattern=r"^(\*|[A-Za-z0-9][A-Za-z0-9_.:@-]*)$"),
]
SessionId = Annotated[
    str,
    Field(min_length=1, max_length=128, json_schema_extra=_schema_pattern(_PRINTABLE)),
    AfterValidator(_check_printable),
]
# An API key's name: printable, since the database reads text only up to a NUL (a name
# starting with one would come back empty).
KeyName = Annotated[
    str,
    Field(min_length=1, max_length=100, json_schema_extra=_schema_pattern(_PRINTABLE)),
    AfterValidator(_check_printable),
]


def _clean_key(value: str) -> str:
    value = _check_printable(value).strip()
    if not value:
        raise ValueError("key must not be blank")
    return value


# A credential as a header carries it (the rule of ``credential``); "" removes the stored one.
_CREDENTIAL = "^[!-~]*$"
Credential = Annotated[
    str,
    Field(max_length=500, json_schema_extra=_schema_pattern(_CREDENTIAL)),
    AfterValidator(credential),
]
MemoryKey = Annotated[
    str,
    Field(min_length=1, max_length=200, json_schema_extra=_schema_pattern(_NOT_BLANK_PRINTABLE)),
    AfterValidator(_clean_key),
]
Content = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_CONTENT_CHARS,
        json_schema_extra=_schema_pattern(_NOT_BLANK_NO_NUL),
        description="The memory's text: not blank, no NUL characters",
    ),
    AfterValidator(_check_content),
]
Metadata = Annotated[
    dict[str, Any],
    Field(
        description=f"Any JSON object, at most {MAX_METADATA_BYTES} bytes as JSON and nested"
        f" at most {MAX_METADATA_DEPTH} levels"
    ),
    AfterValidator(_check_metadata),
]
