"""Engram's memory as MCP tools: what each tool takes, says, promises, and which one
engine call it makes, for exactly one API key.

Transport-free and synchronous: ``server.py`` serves these over any MCP transport. A
tool never takes an API key id; the key it acts for is the caller's (the HTTP bearer
key, or ``ENGRAM_API_KEY`` over stdio), and every engine call is scoped to it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from engram import Engine, InvalidInputError, NotFoundError
from engram.domain.models import (
    ForgetOutcome,
    Memory,
    MemoryCreate,
    MemoryForget,
    MemoryQuery,
    RetrievalRequest,
    RetrievalResult,
)
from engram.domain.models.common import (
    JSON_INT,
    ApiModel,
    Content,
    MemoryKey,
    MemoryType,
    Metadata,
    Scope,
    SessionId,
)

__all__ = ["TOOLS", "Tool", "call_tool", "inline_refs"]

_ARGS = ConfigDict(extra="forbid")


# -- arguments -------------------------------------------------------------------------


class SearchArgs(ApiModel):
    model_config = _ARGS

    query: Annotated[str, Field(min_length=1, max_length=16_000)] = Field(
        description="What to look for, in plain words (a question or a topic)"
    )
    limit: Annotated[int, Field(ge=1, le=100), JSON_INT] = Field(
        10, description="At most this many memories (the key's token budget may return fewer)"
    )
    session_id: SessionId | None = Field(
        None, description="A conversation's id; required with scope 'session'"
    )
    scope: Scope = Field(
        Scope.API_KEY,
        description="'apiKey' (default): all of this key's memories and global ones; "
        "'session': only those of sessionId (and global ones); 'global': only global ones",
    )


class AddArgs(ApiModel):
    model_config = _ARGS

    content: Content = Field(
        description="One self-contained statement, e.g. 'Prefers TypeScript over JavaScript'"
    )
    key: MemoryKey | None = Field(
        None,
        description="A stable name for this memory (e.g. 'preferred-language'). Adding "
        "again under the same key replaces its content; derived from the content if omitted",
    )
    type: MemoryType = Field(
        MemoryType.FACTUAL,
        description="factual (facts about the user or project), episodic (what happened), "
        "procedural (how the user wants things done), semantic (general knowledge)",
    )
    session_id: SessionId | None = Field(None, description="The conversation it belongs to")
    metadata: Metadata = Field(default_factory=dict)


class ClearArgs(ApiModel):
    model_config = _ARGS

    session_id: SessionId | None = Field(None, description="Only this conversation's memories")
    type: MemoryType | None = Field(None, description="Only memories of this type")
    older_than_days: Annotated[int, Field(ge=1, le=36_500), JSON_INT] | None = Field(
        None, description="Only memories last written more than this many days ago"
    )
    dry_run: bool = Field(False, description="Only count what would be deleted")


class ListArgs(ApiModel):
    model_config = _ARGS

    limit: Annotated[int, Field(ge=1, le=100), JSON_INT] = Field(20, description="Page size")
    cursor: Annotated[str, Field(max_length=64)] | None = Field(
        None, description="nextCursor of the previous page"
    )
    type: MemoryType | None = Field(None, description="Only memories of this type")
    session_id: SessionId | None = Field(None, description="Only this conversation's memories")


class DeleteArgs(ApiModel):
    model_config = _ARGS

    id: Annotated[str, Field(min_length=1, max_length=64)] = Field(
        description="The memory's id, as memory_search, memory_list or memory_add gave it"
    )


class PinArgs(ApiModel):
    model_config = _ARGS

    id: Annotated[str, Field(min_length=1, max_length=64)] = Field(
        description="The memory's id, as memory_search, memory_list or memory_add gave it"
    )
    pinned: bool | None = Field(
        description="true: in the profile, given with every request; false: only when "
        "relevant; null: as its category decides"
    )


# -- results ---------------------------------------------------------------------------


class AddResult(ApiModel):
    memory: Memory
    created: bool = Field(description="false when an existing memory with this key was updated")


class ListResult(ApiModel):
    memories: list[Memory]
    total: int = Field(description="How many memories match the filters")
    next_cursor: str | None = Field(description="Pass as cursor for the next page; null at the end")


class DeleteResult(ApiModel):
    id: str
    deleted: bool


# -- the calls -------------------------------------------------------------------------


def _search(engine: Engine, owner: str, args: SearchArgs) -> RetrievalResult:
    request = RetrievalRequest(
        query=args.query, limit=args.limit, session_id=args.session_id, scope=args.scope
    )
    # Counted, like the chat path's retrieval: a model searching memory is memory reaching
    # a model, which is what the hit rate measures (see docs/architecture.md, MCP).
    # Through the gateway, as the chat path: the primary backend answers.
    return engine.memory.search(owner, request)


def _add(engine: Engine, owner: str, args: AddArgs) -> AddResult:
    item = MemoryCreate.model_validate({**args.model_dump(by_alias=False), "api_key_id": owner})
    outcome = engine.memory.create(item)
    return AddResult(memory=outcome.memory, created=outcome.created)


def _clear(engine: Engine, owner: str, args: ClearArgs) -> ForgetOutcome:
    request = MemoryForget.model_validate({**args.model_dump(by_alias=False), "api_key_id": owner})
    return engine.memory.forget(request)


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    try:
        offset = int(base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii"))
    except (ValueError, UnicodeError, binascii.Error):
        raise InvalidInputError("cursor is not one memory_list returned", field="cursor") from None
    if not 0 <= offset <= 100_000_000:
        raise InvalidInputError("cursor is not one memory_list returned", field="cursor")
    return offset


def _list(engine: Engine, owner: str, args: ListArgs) -> ListResult:
    offset = _offset(args.cursor)
    query = MemoryQuery(
        api_key_id=owner,
        type=args.type,
        session_id=args.session_id,
        limit=args.limit,
        offset=offset,
    )
    page = engine.memory.list_page(query)
    following = offset + len(page.data)
    more = bool(page.data) and following < page.total
    cursor = base64.urlsafe_b64encode(str(following).encode("ascii")).decode() if more else None
    return ListResult(memories=page.data, total=page.total, next_cursor=cursor)


def _delete(engine: Engine, owner: str, args: DeleteArgs) -> DeleteResult:
    # Scoped to the key: another key's memory is "not found", never deleted.
    if not engine.memory.delete(args.id, owner):
        raise NotFoundError(f"no memory with id {args.id}", field="id")
    return DeleteResult(id=args.id, deleted=True)


def _pin(engine: Engine, owner: str, args: PinArgs) -> Memory:
    # Scoped to the key: another key's memory is "not found", never changed.
    memory = engine.memory.pin(args.id, args.pinned, owner)
    if memory is None:
        raise NotFoundError(f"no memory with id {args.id}", field="id")
    return memory


# -- the catalogue ---------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    arguments: type[ApiModel]
    result: type[BaseModel]
    run: Callable[[Engine, str, Any], BaseModel]
    read_only: bool
    destructive: bool
    idempotent: bool

    def input_schema(self) -> dict[str, Any]:
        return inline_refs(self.arguments.model_json_schema(by_alias=True))

    def output_schema(self) -> dict[str, Any]:
        return inline_refs(self.result.model_json_schema(by_alias=True, mode="serialization"))


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "memory_search",
            "Search memory",
            "Find what is remembered about the user, their preferences and their projects. "
            "Call it before answering anything that may depend on what the user told you "
            "earlier. Returns the user's profile first (who they are, health, home, family, "
            "pets, standing instructions, pinned memories: tier profile), then the memories "
            "relevant to the query, best first, each with its score, tier (keyword, vector, "
            "hybrid, recent) and reason, within this key's token budget. Irrelevant memories "
            "are left out.",
            SearchArgs,
            RetrievalResult,
            _search,
            read_only=True,
            destructive=False,
            idempotent=True,
        ),
        Tool(
            "memory_add",
            "Remember",
            "Store one thing worth remembering across conversations: a fact about the user, "
            "a preference, a decision, how they want things done. One self-contained "
            "statement per call ('Prefers TypeScript over JavaScript'). Adding the same "
            "key again replaces that memory (the way to correct it). Secrets such as API "
            "keys and passwords are redacted before anything is stored. Returns the stored "
            "memory with its id.",
            AddArgs,
            AddResult,
            _add,
            read_only=False,
            destructive=True,  # an existing key's content is replaced
            idempotent=True,
        ),
        Tool(
            "memory_clear",
            "Forget memories",
            "Delete this key's memories in bulk: all of them, or only those of a session, "
            "of a type, or older than some days (filters combine). Their earlier versions go "
            "too, from every index. Irreversible: call with dryRun true first to see how many "
            "would go, and only clear when the user asked for it.",
            ClearArgs,
            ForgetOutcome,
            _clear,
            read_only=False,
            destructive=True,
            idempotent=True,
        ),
        Tool(
            "memory_list",
            "List memories",
            "List this key's memories, newest first, a page at a time (pass nextCursor back "
            "as cursor for the next page). Use it to review what is remembered or to find the "
            "id of a memory to delete; use memory_search to find memories about a topic.",
            ListArgs,
            ListResult,
            _list,
            read_only=True,
            destructive=False,
            idempotent=True,
        ),
        Tool(
            "memory_delete",
            "Delete a memory",
            "Delete one memory by id (from memory_search, memory_list or memory_add), e.g. "
            "one that is wrong or that the user wants forgotten. Irreversible.",
            DeleteArgs,
            DeleteResult,
            _delete,
            read_only=False,
            destructive=True,
            idempotent=True,
        ),
        Tool(
            "memory_pin",
            "Pin a memory",
            "Pin one memory (by id) into the user's profile, which goes with every request, "
            "or keep it out (pinned false), or let its category decide (null). Pin what "
            "should always shape answers ('is allergic to penicillin'); unpin what is in "
            "the profile but only sometimes matters. Returns the memory.",
            PinArgs,
            Memory,
            _pin,
            read_only=False,
            destructive=False,
            idempotent=True,
        ),
    )
}


def call_tool(engine: Engine, owner: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Validate ``arguments`` and make the tool's one engine call for the key ``owner``.

    Raises ``pydantic.ValidationError`` for bad arguments, an ``EngramError`` for what the
    engine refuses, and ``KeyError`` for an unknown tool.
    """
    tool = TOOLS[name]
    args = tool.arguments.model_validate(arguments)
    result: dict[str, Any] = tool.run(engine, owner, args).model_dump(mode="json", by_alias=True)
    return result


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every ``#/$defs/...`` reference replaced by its definition: clients
    (and the models reading the schema) need not resolve references. Models here are not
    recursive, so this ends."""
    definitions = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                merged = {**definitions[ref.removeprefix("#/$defs/")], **node}
                merged.pop("$ref")
                return resolve(merged)
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    resolved: dict[str, Any] = resolve(schema)
    return resolved
