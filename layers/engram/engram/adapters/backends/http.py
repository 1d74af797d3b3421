"""The generic HTTP memory backend: any REST API that stores memories, described by
endpoint templates, query- and path-parameter names and where each field lives in its
JSON (``HttpBackendConfig``; the reference's GenericMemoryBackend).

Tenant isolation: the owner is sent with every read (the ``apiKeyId`` query parameter,
by its configured name) and stored with every write (the ``owner`` field); every record
the API answers is checked again, and one whose owner is not the caller's (or cannot
be read) is never returned.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from engram.adapters.backends.client import (
    JsonClient,
    as_memory,
    remote_result,
    type_counts,
    visible,
)
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
from engram.domain.models.backends import HttpBackendConfig

__all__ = ["HttpBackend", "read_path", "write_path"]


def read_path(body: Any, path: str) -> Any:
    """The value at a dotted ``path`` of a JSON body ("" is the body itself)."""
    if not path:
        return body
    for part in path.split("."):
        if not isinstance(body, dict):
            return None
        body = body.get(part)
    return body


def write_path(body: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    for part in parts[:-1]:
        nested = body.get(part)
        if not isinstance(nested, dict):
            nested = body[part] = {}
        body = nested
    body[parts[-1]] = value


class HttpBackend:
    kind = "http"

    def __init__(
        self, name: str, config: HttpBackendConfig, transport: httpx.BaseTransport | None = None
    ) -> None:
        self._name = name
        self.config = config
        headers = dict(config.headers)
        if config.api_key is not None:
            headers["Authorization"] = f"Bearer {config.api_key.get_secret_value()}"
        self.client = JsonClient(
            name,
            config.base_url,
            headers=headers,
            timeout_s=config.timeout_s,
            transport=transport,
        )

    @property
    def name(self) -> str:
        return self._name

    # -- requests and records ---------------------------------------------------------------

    def _path(self, template: str, memory_id: str | None = None) -> str:
        if memory_id is not None:
            template = template.replace(
                "{" + self.config.path_params.id + "}", quote(memory_id, safe="")
            )
        return template

    def _memory(self, record: Any) -> Memory | None:
        f = self.config.fields
        return as_memory(
            memory_id=read_path(record, f.id),
            owner=read_path(record, f.owner),
            content=read_path(record, f.content),
            key=read_path(record, f.key),
            type_=read_path(record, f.type),
            session_id=read_path(record, f.session_id),
            metadata=read_path(record, f.metadata),
            created_at=read_path(record, f.created_at),
            updated_at=read_path(record, f.updated_at),
        )

    def _items(self, operation: str, body: Any) -> list[Any]:
        items = read_path(body, self.config.fields.items)
        if not isinstance(items, list):
            raise BackendError(f"{self.name} answered {operation} without a list of memories")
        return items

    def _record(self, item: MemoryCreate | MemoryUpdate, owner: str | None) -> dict[str, Any]:
        f = self.config.fields
        body: dict[str, Any] = {}
        values = item.model_dump(mode="json", by_alias=False, exclude_unset=True)
        for name in ("content", "key", "type", "session_id", "metadata"):
            if name in values:
                write_path(body, getattr(f, name), values[name])
        if owner is not None:
            write_path(body, f.owner, owner)
        return body

    def _owner_param(self, owner: str | None) -> list[tuple[str, str]]:
        return [] if owner is None else [(self.config.query_params.api_key_id, owner)]

    # -- MemoryBackend ------------------------------------------------------------------------

    def create(self, item: MemoryCreate) -> UpsertOutcome:
        response = self.client.request(
            "create",
            "POST",
            self.config.endpoints.create,
            json=self._record(item, item.api_key_id),
        )
        assert response is not None
        memory = self._memory(self.client.json("create", response))
        if memory is None or memory.api_key_id != item.api_key_id:
            raise BackendError(f"{self.name} answered create without the stored memory")
        # 200: an existing (owner, key) was updated; 201 (or any other 2xx): created.
        created = response.status_code != 200
        return UpsertOutcome(memory=memory, created=created, content_changed=True)

    def get(self, memory_id: str, owner: str | None) -> Memory | None:
        response = self.client.request(
            "get",
            "GET",
            self._path(self.config.endpoints.get, memory_id),
            params=self._owner_param(owner),
            missing_ok=True,
        )
        if response is None:
            return None
        memory = self._memory(self.client.json("get", response))
        if memory is None or (owner is not None and memory.api_key_id != owner):
            return None
        return memory

    def update(self, memory_id: str, owner: str | None, changes: MemoryUpdate) -> Memory | None:
        current = self.get(memory_id, owner)
        if current is None:
            return None
        response = self.client.request(
            "update",
            self.config.update_method,
            self._path(self.config.endpoints.update, memory_id),
            params=self._owner_param(current.api_key_id),
            json=self._record(changes, current.api_key_id),
            missing_ok=True,
        )
        if response is None:
            return None
        memory = self._memory(self.client.json("update", response)) if response.content else None
        if memory is None or memory.api_key_id != current.api_key_id:
            memory = self.get(memory_id, current.api_key_id)
        return memory

    def delete(self, memory_id: str, owner: str | None) -> bool:
        current = self.get(memory_id, owner)
        if current is None:
            return False
        response = self.client.request(
            "delete",
            "DELETE",
            self._path(self.config.endpoints.delete, memory_id),
            params=self._owner_param(current.api_key_id),
            missing_ok=True,
        )
        return response is not None

    def list_page(self, query: MemoryQuery) -> MemoryPage:
        names = self.config.query_params
        params = [
            *self._owner_param(query.api_key_id),
            (names.limit, str(query.limit)),
            (names.offset, str(query.effective_offset)),
        ]
        if query.type is not None:
            params.append((names.type, query.type.value))
        if query.session_id is not None:
            params.append((names.session_id, query.session_id))
        if query.q:
            params.append((names.query, query.q))
        response = self.client.request("list", "GET", self.config.endpoints.list, params=params)
        assert response is not None
        body = self.client.json("list", response)
        data = [
            m
            for m in (self._memory(item) for item in self._items("list", body))
            if m is not None and (query.api_key_id is None or m.api_key_id == query.api_key_id)
        ]
        total = read_path(body, self.config.fields.total)
        return MemoryPage(
            data=data,
            total=total if isinstance(total, int) and not isinstance(total, bool) else len(data),
            page=query.effective_page,
            limit=query.limit,
            offset=query.effective_offset,
            by_type=type_counts(data),
        )

    def search(
        self, api_key_id: str, request: RetrievalRequest, *, read_only: bool
    ) -> RetrievalResult:
        who = owner_filter(api_key_id, request.scope, request.session_id)
        names = self.config.query_params
        params = [(names.query, request.query), (names.limit, str(request.limit))]
        params += [(names.api_key_id, owner) for owner in who.owners]
        if who.session_id is not None:
            params.append((names.session_id, who.session_id))
        if request.strategy is not None:
            params.append((names.strategy, request.strategy.value))
        if request.max_tokens is not None:
            params.append((names.max_tokens, str(request.max_tokens)))
        response = self.client.request("search", "GET", self.config.endpoints.search, params=params)
        assert response is not None
        items = self._items("search", self.client.json("search", response))
        hits: list[tuple[Memory, float]] = []
        for rank, item in enumerate(items):
            memory = self._memory(item)
            if memory is None or not visible(memory, who.owners, who.session_id):
                continue
            score = read_path(item, self.config.fields.score)
            if not isinstance(score, int | float) or isinstance(score, bool):
                score = 1.0 / (rank + 1)  # the API's own order
            hits.append((memory, float(score)))
        return remote_result(self.name, hits, request)

    def health(self) -> HealthReport:
        return self.client.probe("GET", self.config.endpoints.health)

    def initialize(self) -> None:
        """Nothing to open: the first request connects."""

    def shutdown(self) -> None:
        self.client.close()
