"""Obsidian as a memory backend, through the Local REST API plugin.

Each memory is one Markdown note, ``<folder>/<id>.md``: its text is the note's body and
its fields (owner, key, type, session, times, metadata) are the front matter, written
as JSON values (valid YAML), so the vault stays readable and Obsidian indexes them.
The id is derived from the owner and the key, so writing the same (owner, key) again
replaces its note: an upsert, as in libSQL.

Reads: ``GET /vault/<path>`` with ``Accept: application/vnd.olrapi.note+json`` (the
front matter parsed by Obsidian). Listing and search ask the plugin's search endpoint
(``POST /search/`` with a JsonLogic query) for the notes of the folder whose front
matter names the owner, so the owner is a condition of the query; every note read is
checked again. Search then ranks those notes by how much of the question they cover.
Endpoints and bodies follow the plugin's OpenAPI document
(coddingtonbear/obsidian-local-rest-api, ``docs/openapi.yaml``).
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

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
from engram.domain.models.backends import ObsidianBackendConfig
from engram.domain.terms import coverage, query_terms

__all__ = ["ObsidianBackend", "note_id"]

NOTE_JSON = "application/vnd.olrapi.note+json"
JSONLOGIC = "application/vnd.olrapi.jsonlogic+json"


def note_id(owner: str, key: str) -> str:
    return "obs-" + hashlib.sha256(f"{owner}\n{key}".encode()).hexdigest()[:32]


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat()


def _note(memory: Memory) -> str:
    """The note's text: front matter (one JSON value per line), then the memory."""
    fields = {
        "engramId": memory.id,
        "apiKeyId": memory.api_key_id,
        "key": memory.key,
        "type": memory.type.value,
        "sessionId": memory.session_id,
        "createdAt": _iso(memory.created_at),
        "updatedAt": _iso(memory.updated_at),
        "expiresAt": _iso(memory.expires_at),
        "metadata": memory.metadata,
        "tags": ["engram"],
    }
    lines = [f"{name}: {json.dumps(value, ensure_ascii=False)}" for name, value in fields.items()]
    return "---\n" + "\n".join(lines) + "\n---\n" + memory.content + "\n"


def _body(content: str) -> str:
    """A note's text without its front matter."""
    if content.startswith("---\n"):
        end = content.find("\n---\n", 4)
        if end >= 0:
            content = content[end + 5 :]
    return content[:-1] if content.endswith("\n") else content


class ObsidianBackend:
    kind = "obsidian"

    def __init__(
        self,
        name: str,
        config: ObsidianBackendConfig,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if config.api_key is None:
            raise BackendError(f"{name} has no apiKey (the Local REST API plugin's key)")
        self._name = name
        self.config = config
        headers = {**config.headers, "Authorization": f"Bearer {config.api_key.get_secret_value()}"}
        self.client = JsonClient(
            name,
            config.base_url,
            headers=headers,
            timeout_s=config.timeout_s,
            verify=config.verify_tls,
            transport=transport,
        )

    @property
    def name(self) -> str:
        return self._name

    def _path(self, memory_id: str) -> str:
        return "/vault/" + quote(f"{self.config.folder}/{memory_id}.md")

    def _memory(self, note: Any) -> Memory | None:
        if not isinstance(note, dict):
            return None
        front = note.get("frontmatter")
        content = note.get("content")
        if not isinstance(front, dict) or not isinstance(content, str):
            return None
        return as_memory(
            memory_id=front.get("engramId"),
            owner=front.get("apiKeyId"),
            content=_body(content),
            key=front.get("key"),
            type_=front.get("type"),
            session_id=front.get("sessionId"),
            metadata=front.get("metadata"),
            created_at=front.get("createdAt"),
            updated_at=front.get("updatedAt"),
            expires_at=front.get("expiresAt"),
        )

    def _read(self, memory_id: str, owner: str | None) -> Memory | None:
        response = self.client.request(
            "get", "GET", self._path(memory_id), headers={"Accept": NOTE_JSON}, missing_ok=True
        )
        if response is None:
            return None
        memory = self._memory(self.client.json("get", response))
        if memory is None or memory.id != memory_id:
            return None
        if owner is not None and memory.api_key_id != owner:
            return None
        return memory

    def _write(self, memory: Memory) -> None:
        self.client.request(
            "write",
            "PUT",
            self._path(memory.id),
            content=_note(memory),
            headers={"Content-Type": "text/markdown"},
        )

    def _notes(self, owners: tuple[str, ...] | None, session_id: str | None) -> list[Memory]:
        """The folder's notes of ``owners`` (all owners: None), by the plugin's search."""
        conditions: list[Any] = [{"glob": [f"{self.config.folder}/*.md", {"var": "path"}]}]
        if owners is not None:
            conditions.append({"in": [{"var": "frontmatter.apiKeyId"}, list(owners)]})
        if session_id is not None:
            conditions.append({"==": [{"var": "frontmatter.sessionId"}, session_id]})
        query = {"if": [{"and": conditions}, {"var": ""}, False]}
        response = self.client.request(
            "search",
            "POST",
            "/search/",
            content=json.dumps(query),
            headers={"Content-Type": JSONLOGIC},
        )
        assert response is not None
        found = self.client.json("search", response)
        if not isinstance(found, list):
            raise BackendError(f"{self.name} answered search without a list of notes")
        memories = []
        for hit in found:
            memory = self._memory(hit.get("result") if isinstance(hit, dict) else None)
            if memory is None or (owners is not None and memory.api_key_id not in owners):
                continue
            if session_id is not None and memory.session_id != session_id:
                continue
            memories.append(memory)
        return memories

    # -- MemoryBackend ------------------------------------------------------------------------

    def create(self, item: MemoryCreate) -> UpsertOutcome:
        key = item.key or item.content
        memory_id = note_id(item.api_key_id, key)
        now = datetime.now(UTC)
        current = self._read(memory_id, item.api_key_id)
        memory = Memory(
            id=memory_id,
            api_key_id=item.api_key_id,
            session_id=item.session_id,
            type=item.type,
            key=key,
            content=item.content,
            metadata=item.metadata,
            created_at=current.created_at if current else now,
            updated_at=now,
            expires_at=item.expires_at,
        )
        self._write(memory)
        return UpsertOutcome(
            memory=memory,
            created=current is None,
            content_changed=current is None or current.content != memory.content,
        )

    def get(self, memory_id: str, owner: str | None) -> Memory | None:
        return self._read(memory_id, owner)

    def update(self, memory_id: str, owner: str | None, changes: MemoryUpdate) -> Memory | None:
        current = self._read(memory_id, owner)
        if current is None:
            return None
        values = changes.model_dump(by_alias=False, exclude_unset=True)
        memory = current.model_copy(update={**values, "updated_at": datetime.now(UTC)})
        self._write(memory)
        return memory

    def delete(self, memory_id: str, owner: str | None) -> bool:
        if self._read(memory_id, owner) is None:
            return False
        response = self.client.request("delete", "DELETE", self._path(memory_id), missing_ok=True)
        return response is not None

    def list_page(self, query: MemoryQuery) -> MemoryPage:
        owners = None if query.api_key_id is None else (query.api_key_id,)
        notes = self._notes(owners, query.session_id)
        if query.type is not None:
            notes = [m for m in notes if m.type == query.type]
        if query.q:
            needle = query.q.lower()
            notes = [m for m in notes if needle in m.content.lower() or needle in m.key.lower()]
        notes.sort(key=lambda m: m.created_at, reverse=True)
        return page_of(notes, query)

    def search(
        self, api_key_id: str, request: RetrievalRequest, *, read_only: bool
    ) -> RetrievalResult:
        who = owner_filter(api_key_id, request.scope, request.session_id)
        notes = [m for m in self._notes(who.owners, who.session_id) if visible(m, who.owners, None)]
        terms = query_terms(request.query)
        if not terms:  # no question: the newest notes
            newest = sorted(notes, key=lambda m: m.updated_at, reverse=True)
            return remote_result(self.name, [(m, 0.0) for m in newest], request)
        hits = [(m, coverage(terms, f"{m.key} {m.content}")) for m in notes]
        return remote_result(self.name, [(m, s) for m, s in hits if s > 0], request)

    def health(self) -> HealthReport:
        def authenticated(response: httpx.Response) -> str | None:
            body = self.client.json("health", response)
            if not isinstance(body, dict) or body.get("authenticated") is not True:
                return f"{self.name} refused the API key"
            return None

        return self.client.probe("GET", "/", authenticated)

    def initialize(self) -> None:
        """Nothing to open: the first request connects."""

    def shutdown(self) -> None:
        self.client.close()
