"""Memory models, split by direction: what callers send, what the engine returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Self

from pydantic import ConfigDict, Field, StrictBool, computed_field, model_validator

from engram.domain.models.common import (
    ApiKeyId,
    ApiModel,
    Content,
    MemoryKey,
    MemoryType,
    Metadata,
    PartialUpdate,
    SessionId,
    UtcDatetime,
)
from engram.domain.models.profile import profile_reason

__all__ = [
    "ForgetOutcome",
    "Memory",
    "MemoryCreate",
    "MemoryForget",
    "MemoryHistory",
    "MemoryImport",
    "MemoryPage",
    "MemoryPin",
    "MemoryQuery",
    "MemoryStats",
    "MemoryUpdate",
    "MemoryVersion",
    "Removed",
    "UpsertOutcome",
]

_FORBID = ConfigDict(extra="forbid")


class MemoryCreate(ApiModel):
    """A new memory. An existing ``(apiKeyId, key)`` is updated in place instead."""

    model_config = _FORBID

    api_key_id: ApiKeyId
    content: Content
    key: MemoryKey | None = Field(
        None, description="Stable upsert key; derived from the content when omitted"
    )
    type: MemoryType = MemoryType.FACTUAL
    session_id: SessionId | None = None
    metadata: Metadata = Field(default_factory=dict)
    expires_at: UtcDatetime | None = None


class MemoryImport(MemoryCreate):
    """A memory as exported: identity and timestamps are kept so a round trip is exact."""

    id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")] | None = (
        None
    )
    created_at: UtcDatetime | None = None
    updated_at: UtcDatetime | None = None
    profile: StrictBool | None = Field(
        None, exclude=True, description="As exported; ignored: metadata.pinned decides"
    )


class MemoryPin(ApiModel):
    """Pin a memory into the profile (true), keep it out (false), or let its category
    decide again (null)."""

    model_config = ConfigDict(extra="forbid")

    pinned: StrictBool | None


class MemoryUpdate(PartialUpdate):
    """Fields to change; omitted fields stay. ``metadata`` replaces the stored object;
    ``sessionId: null`` and ``expiresAt: null`` clear theirs. At least one field."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"minProperties": 1})
    NULLABLE = frozenset({"session_id", "expires_at"})

    content: Content | None = None
    key: MemoryKey | None = None
    type: MemoryType | None = None
    session_id: SessionId | None = None
    metadata: Metadata | None = None
    expires_at: UtcDatetime | None = None

    @model_validator(mode="after")
    def _not_empty(self) -> Self:
        if not self.model_fields_set:
            raise ValueError("at least one field must be given")
        return self


class Memory(ApiModel):
    id: str
    api_key_id: str
    session_id: str | None
    type: MemoryType
    key: str
    content: str
    metadata: dict[str, Any]
    created_at: UtcDatetime
    updated_at: UtcDatetime
    expires_at: UtcDatetime | None

    @computed_field(  # type: ignore[prop-decorator]
        description="In the profile: injected with every request, not only when relevant"
        " (a profile category, or metadata.pinned true)"
    )
    @property
    def profile(self) -> bool:
        return profile_reason(self.metadata) is not None


@dataclass(frozen=True)
class Removed:
    """Memories a write took out of ``memories`` (deleted, forgotten or retired): what the
    other indexes and caches must drop too."""

    ids: tuple[str, ...] = ()
    contents: tuple[str, ...] = ()
    owners: tuple[str, ...] = ()  # whose memories they were (each key once)

    def __bool__(self) -> bool:
        return bool(self.ids)

    def __add__(self, other: Removed) -> Removed:
        owners = self.owners + tuple(o for o in other.owners if o not in self.owners)
        return Removed(self.ids + other.ids, self.contents + other.contents, owners)


@dataclass(frozen=True)
class UpsertOutcome:
    """What an upsert did: the stored memory, whether it was new or its text changed, and
    the memory it superseded (retired into the history), if any."""

    memory: Memory
    created: bool
    content_changed: bool
    retired: Removed = Removed()


class MemoryQuery(ApiModel):
    """Filters and paging for listing. ``offset`` wins over ``page`` when both are given."""

    model_config = _FORBID

    api_key_id: ApiKeyId | None = None
    type: MemoryType | None = None
    session_id: SessionId | None = None
    q: Annotated[str, Field(max_length=500)] | None = None
    limit: Annotated[int, Field(ge=1, le=500)] = 50
    page: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    offset: Annotated[int, Field(ge=0, le=100_000_000)] | None = None

    @property
    def effective_offset(self) -> int:
        return self.offset if self.offset is not None else (self.page - 1) * self.limit

    @property
    def effective_page(self) -> int:
        return self.effective_offset // self.limit + 1


class MemoryStats(ApiModel):
    total: int
    tokens_used: int
    hit_rate: float = Field(description="Share of retrievals that returned at least one memory")
    retrievals: int


class MemoryPage(ApiModel):
    data: list[Memory]
    total: int
    page: int
    limit: int
    offset: int
    by_type: dict[str, int]


class MemoryForget(ApiModel):
    """Which memories of one key to forget: all of them, or those matching every filter
    given. Their retired versions (history) go with them."""

    model_config = _FORBID

    api_key_id: ApiKeyId = Field(description="The key whose memories are forgotten (required)")
    session_id: SessionId | None = None
    type: MemoryType | None = None
    older_than_days: Annotated[int, Field(ge=1, le=36_500)] | None = Field(
        None, description="Only memories last written more than this many days ago"
    )
    dry_run: StrictBool = Field(False, description="Count what would be forgotten, change nothing")


class ForgetOutcome(ApiModel):
    matched: int = Field(description="Live memories that matched the filters")
    deleted: int = Field(description="Live memories deleted (0 on a dry run)")
    history: int = Field(description="Retired versions that matched (deleted unless a dry run)")
    by_type: dict[str, int]
    dry_run: bool


class MemoryVersion(Memory):
    """One version of a fact: the live memory, or one it retired."""

    valid_from: UtcDatetime = Field(description="When this version was first stated")
    valid_to: UtcDatetime | None = Field(description="When it was retired; null while live")
    superseded_by: str | None = Field(
        description="The memory that replaced it; null when live or only withdrawn"
    )
    reason: str | None = Field(description="superseded | withdrawn; null while live")


class MemoryHistory(ApiModel):
    """A fact's versions, newest first: the live one (if any) and those it replaced."""

    data: list[MemoryVersion]
