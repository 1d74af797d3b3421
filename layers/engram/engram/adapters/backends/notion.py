"""Notion as a memory backend: one page per memory in a database, through Notion's public
REST API (``Authorization: Bearer``, ``Notion-Version``; developers.notion.com).

The page's title is the memory's key; its text, owner, type and session are rich-text
properties (names configurable), its metadata a JSON rich-text property. Reads query
the database with the owner as a filter condition (``POST /databases/{id}/query``), so
Notion itself never returns another owner's pages; every page read is checked again
(its database, its owner, not archived). A search adds an ``or`` of ``contains``
conditions on the text and the title (Notion's ``/search`` matches titles only, across the whole
workspace) and ranks what comes back by how much of the question each page covers.
Deleting archives the page, which is Notion's delete. Writing the same (owner, key)
again updates its page: an upsert, as in libSQL.

Hand-written over the shared client rather than ``notion-client``: six endpoints, and
every connection must go through the vetted transport with one timeout and one error
policy, like the other backends.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from engram.adapters.backends.client import JsonClient, as_memory, page_of, remote_result, visible
from engram.domain.errors import BackendError
from engram.domain.models import (
    HealthReport,
    Memory,
    MemoryCreate,
    MemoryPage,
    MemoryQuery,
    MemoryUpdate,
    RetrievalRequest,
    RetrievalResult,
    UpsertOutcome,
    owner_filter,
)
from engram.domain.models.backends import NotionBackendConfig
from engram.domain.terms import coverage, query_terms

__all__ = ["NotionBackend"]

# Notion's limits: 2,000 characters per rich-text object, 100 results per query page.
_CHUNK = 2000
_PAGE = 100
# At most this many pages are read for one list or search (a bound, not a feature).
_MAX_READ = 1000
_TERMS = 12
_UUID = re.compile(
    r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
)


def _text(value: str) -> list[dict[str, Any]]:
    chunks = [value[i : i + _CHUNK] for i in range(0, len(value), _CHUNK)] or [""]
    return [{"type": "text", "text": {"content": chunk}} for chunk in chunks]


def _plain(prop: Any) -> str | None:
    if not isinstance(prop, dict):
        return None
    parts = prop.get(prop.get("type") or "rich_text")
    if not isinstance(parts, list):
        return None
    texts = [
        p.get("plain_text") or p.get("text", {}).get("content")
        for p in parts
        if isinstance(p, dict)
    ]
    return "".join(t for t in texts if isinstance(t, str))


def _bare(page_id: str) -> str:
    return page_id.replace("-", "").lower()


class NotionBackend:
    kind = "notion"

    def __init__(
        self, name: str, config: NotionBackendConfig, transport: httpx.BaseTransport | None = None
    ) -> None:
        if config.api_key is None:
            raise BackendError(f"{name} has no apiKey (the Notion integration's token)")
        self._name = name
        self.config = config
        headers = {
            **config.headers,
            "Authorization": f"Bearer {config.api_key.get_secret_value()}",
            "Notion-Version": config.notion_version,
        }
        self.client = JsonClient(
            name, config.base_url, headers=headers, timeout_s=config.timeout_s, transport=transport
        )

    @property
    def name(self) -> str:
        return self._name

    # -- pages and memories -------------------------------------------------------------------

    def _properties(self, values: dict[str, Any], owner: str | None) -> dict[str, Any]:
        c = self.config
        props: dict[str, Any] = {}
        if "key" in values:
            props[c.title_property] = {"title": _text(values["key"])}
        if "content" in values:
            props[c.content_property] = {"rich_text": _text(values["content"])}
        if "type" in values:
            props[c.type_property] = {"rich_text": _text(str(values["type"]))}
        if "session_id" in values:
            props[c.session_property] = {"rich_text": _text(values["session_id"] or "")}
        if "metadata" in values:
            props[c.metadata_property] = {"rich_text": _text(json.dumps(values["metadata"] or {}))}
        if owner is not None:
            props[c.owner_property] = {"rich_text": _text(owner)}
        return props

    def _memory(self, page: Any) -> Memory | None:
        c = self.config
        if not isinstance(page, dict) or page.get("object") != "page":
            return None
        if page.get("archived") or page.get("in_trash"):
            return None
        parent = page.get("parent") or {}
        if not isinstance(parent, dict) or _bare(str(parent.get("database_id", ""))) != _bare(
            c.database_id
        ):
            return None  # a page of another database is never a memory
        props = page.get("properties") or {}
        try:
            metadata = json.loads(_plain(props.get(c.metadata_property)) or "{}")
        except ValueError:
            metadata = {}
        return as_memory(
            memory_id=page.get("id"),
            owner=_plain(props.get(c.owner_property)),
            content=_plain(props.get(c.content_property)),
            key=_plain(props.get(c.title_property)),
            type_=_plain(props.get(c.type_property)),
            session_id=_plain(props.get(c.session_property)),
            metadata=metadata,
            created_at=page.get("created_time"),
            updated_at=page.get("last_edited_time"),
        )

    def _rich(self, prop: str, value: str, op: str = "equals") -> dict[str, Any]:
        return {"property": prop, "rich_text": {op: value}}

    def _query(self, conditions: list[dict[str, Any]], limit: int) -> list[Memory]:
        """Pages of the database matching every condition, newest first, up to ``limit``."""
        found: list[Memory] = []
        cursor: str | None = None
        while len(found) < limit:
            body: dict[str, Any] = {
                "filter": {"and": conditions},
                "sorts": [{"timestamp": "created_time", "direction": "descending"}],
                "page_size": _PAGE,
            }
            if cursor:
                body["start_cursor"] = cursor
            response = self.client.request(
                "query", "POST", f"/databases/{self.config.database_id}/query", json=body
            )
            assert response is not None
            answer = self.client.json("query", response)
            results = answer.get("results") if isinstance(answer, dict) else None
            if not isinstance(results, list):
                raise BackendError(f"{self.name} answered query without results")
            found += [m for m in (self._memory(page) for page in results) if m is not None]
            cursor = answer.get("next_cursor") if answer.get("has_more") else None
            if not isinstance(cursor, str) or not cursor:
                break
        return found[:limit]

    def _owned(self, owners: tuple[str, ...] | None) -> list[dict[str, Any]]:
        if owners is None:
            return [{"property": self.config.owner_property, "rich_text": {"is_not_empty": True}}]
        if len(owners) == 1:
            return [self._rich(self.config.owner_property, owners[0])]
        return [{"or": [self._rich(self.config.owner_property, o) for o in owners]}]

    def _page(self, memory_id: str, owner: str | None) -> Memory | None:
        if not _UUID.match(memory_id):
            return None  # Notion's ids are UUIDs: anything else is no page of ours
        response = self.client.request("get", "GET", f"/pages/{memory_id}", missing_ok=True)
        if response is None:
            return None
        memory = self._memory(self.client.json("get", response))
        if memory is None or (owner is not None and memory.api_key_id != owner):
            return None
        return memory

    # -- MemoryBackend --------------------------------------------------------------------------

    def create(self, item: MemoryCreate) -> UpsertOutcome:
        key = item.key or item.content
        values = item.model_dump(by_alias=False, exclude={"api_key_id", "expires_at"})
        values["key"] = key
        title = {"property": self.config.title_property, "title": {"equals": key}}
        same = self._query([*self._owned((item.api_key_id,)), title], 1)
        if same:
            current = same[0]
            response = self.client.request(
                "update",
                "PATCH",
                f"/pages/{current.id}",
                json={"properties": self._properties(values, item.api_key_id)},
            )
            created = False
            changed = current.content != item.content
        else:
            response = self.client.request(
                "create",
                "POST",
                "/pages",
                json={
                    "parent": {"database_id": self.config.database_id},
                    "properties": self._properties(values, item.api_key_id),
                },
            )
            created = changed = True
        assert response is not None
        memory = self._memory(self.client.json("create", response))
        if memory is None or memory.api_key_id != item.api_key_id:
            raise BackendError(f"{self.name} answered create without the page")
        return UpsertOutcome(memory=memory, created=created, content_changed=changed)

    def get(self, memory_id: str, owner: str | None) -> Memory | None:
        return self._page(memory_id, owner)

    def update(self, memory_id: str, owner: str | None, changes: MemoryUpdate) -> Memory | None:
        current = self._page(memory_id, owner)
        if current is None:
            return None
        values = changes.model_dump(by_alias=False, exclude_unset=True, exclude={"expires_at"})
        response = self.client.request(
            "update",
            "PATCH",
            f"/pages/{current.id}",
            json={"properties": self._properties(values, None)},
            missing_ok=True,
        )
        if response is None:
            return None
        return self._memory(self.client.json("update", response))

    def delete(self, memory_id: str, owner: str | None) -> bool:
        current = self._page(memory_id, owner)
        if current is None:
            return False
        response = self.client.request(
            "delete", "PATCH", f"/pages/{current.id}", json={"archived": True}, missing_ok=True
        )
        return response is not None

    def list_page(self, query: MemoryQuery) -> MemoryPage:
        c = self.config
        conditions = self._owned(None if query.api_key_id is None else (query.api_key_id,))
        if query.type is not None:
            conditions.append(self._rich(c.type_property, query.type.value))
        if query.session_id is not None:
            conditions.append(self._rich(c.session_property, query.session_id))
        if query.q:
            conditions.append(self._rich(c.content_property, query.q, "contains"))
        pages = self._query(conditions, _MAX_READ)
        return page_of(pages, query)

    def search(
        self, api_key_id: str, request: RetrievalRequest, *, read_only: bool
    ) -> RetrievalResult:
        c = self.config
        who = owner_filter(api_key_id, request.scope, request.session_id)
        conditions = self._owned(who.owners)
        if who.session_id is not None:
            conditions.append(self._rich(c.session_property, who.session_id))
        terms = query_terms(request.query)[:_TERMS]
        if terms:  # a word of the question in the text or the key (the page's title)
            words = [self._rich(c.content_property, t, "contains") for t in terms]
            words += [{"property": c.title_property, "title": {"contains": t}} for t in terms]
            conditions.append({"or": words})
        pages = [m for m in self._query(conditions, _MAX_READ) if visible(m, who.owners, None)]
        if not terms:
            return remote_result(self.name, [(m, 0.0) for m in pages], request)
        hits = [(m, coverage(terms, f"{m.key} {m.content}")) for m in pages]
        return remote_result(self.name, [(m, s) for m, s in hits if s > 0], request)

    def health(self) -> HealthReport:
        return self.client.probe("GET", f"/databases/{self.config.database_id}")

    def initialize(self) -> None:
        """Nothing to open: the first request connects."""

    def shutdown(self) -> None:
        self.client.close()
