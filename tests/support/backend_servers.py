"""Real HTTP servers on 127.0.0.1 that behave like the remote memory backends.

- ``MemoryApi``: a generic JSON memory API (the reference's GenericMemoryBackend talks
  to one): routes and field names are configurable, so templates and mappings are
  exercised against a server that really uses them.
- ``ObsidianServer``: a stand-in for Obsidian's Local REST API plugin, built from its
  public OpenAPI document (coddingtonbear/obsidian-local-rest-api, docs/openapi.yaml):
  ``GET /`` (status, ``authenticated``), ``GET|PUT|DELETE /vault/{path}`` (Markdown; the
  ``application/vnd.olrapi.note+json`` view with parsed front matter), ``POST /search/``
  with a JsonLogic query (``application/vnd.olrapi.jsonlogic+json``; the operators
  Engram sends: and, or, if, ==, in, glob, var), errors as ``{errorCode, message}``.
  It is not Obsidian: no plugin code runs here.
- ``NotionServer``: a stand-in for Notion's public REST API, built from its
  documentation (developers.notion.com): pages in a database, queries with filters,
  the ``Notion-Version`` header. It is not Notion.

Each server records requests (method, path, query, headers, body) and can be told to
fail: ``mode`` = ``ok``, ``fail`` (500), ``hang`` (answers after ``hang_s``), ``garbage``
(200 with a body that is not JSON), ``refuse`` (401 whatever the key).
"""

from __future__ import annotations

import fnmatch
import json
import re
import threading
import time
import uuid
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import yaml

__all__ = ["MemoryApi", "NotionServer", "ObsidianServer", "Recorded"]


class Recorded(dict[str, Any]):
    """One request as the server saw it."""


class _Server:
    """Lifecycle, recording and failure modes shared by the stand-ins."""

    def __init__(self, api_key: str | None) -> None:
        self.api_key = api_key
        self.mode = "ok"
        self.hang_s = 3.0
        # When set, every request is answered 302 to this path (a moved or hostile server).
        self.redirect_to: str | None = None
        self.requests: list[Recorded] = []
        self._server: ThreadingHTTPServer | None = None
        self._port: int | None = None
        self.lock = threading.Lock()

    def start(self) -> str:
        stand_in = self

        class Handler(_Handler):
            server_of = stand_in

        self._server = ThreadingHTTPServer(("127.0.0.1", self._port or 0), Handler)
        self._server.daemon_threads = True
        self._port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self.url

    @property
    def url(self) -> str:
        assert self._port is not None
        return f"http://127.0.0.1:{self._port}"

    def stop(self) -> None:
        """Down: the port refuses connections (``start`` again brings it back, same port)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> _Server:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def authorized(self, headers: Any) -> bool:
        if self.mode == "refuse":
            return False
        if self.api_key is None:
            return True
        return bool(headers.get("Authorization") == f"Bearer {self.api_key}")

    def handle(self, request: Recorded) -> tuple[int, Any, str]:  # pragma: no cover
        raise NotImplementedError


class _Handler(BaseHTTPRequestHandler):
    server_of: _Server

    def log_message(self, *args: object) -> None:
        pass

    def _serve(self, method: str) -> None:
        stand_in = self.server_of
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        request = Recorded(
            method=method,
            path=unquote(parts.path),
            raw_path=parts.path,
            query=parse_qs(parts.query),
            headers=dict(self.headers.items()),
            body=raw.decode("utf-8", errors="replace"),
        )
        with stand_in.lock:
            stand_in.requests.append(request)
        if stand_in.mode == "hang":
            time.sleep(stand_in.hang_s)
        if stand_in.redirect_to is not None and request["path"] != stand_in.redirect_to:
            self.send_response(302)
            self.send_header("Location", stand_in.url + stand_in.redirect_to)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if stand_in.mode == "fail":
            status, body, kind = 500, {"error": "internal"}, "application/json"
        elif stand_in.mode == "garbage":
            status, body, kind = 200, "<html>not json", "text/html"
        else:
            status, body, kind = stand_in.handle(request)
        self._send(status, body, kind)

    def _send(self, status: int, body: Any, kind: str) -> None:
        data = b""
        if body is not None:
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        try:
            self.send_response(status)
            if data:
                self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout under test)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")


# -- a generic JSON memory API ------------------------------------------------------------------


def _route(template: str) -> re.Pattern[str]:
    pattern = re.escape(template).replace(r"\{", "{").replace(r"\}", "}")
    return re.compile("^" + re.sub(r"{(\w+)}", r"(?P<\1>[^/]+)", pattern) + "$")


class MemoryApi(_Server):
    """A memory API: JSON records, owner-filtered by a query parameter.

    ``fields`` renames record fields (Engram's name -> the API's; dotted = nested),
    ``items`` is where lists sit in list/search answers ("" = the body is the list),
    ``routes`` and ``params`` name the paths and query parameters it answers to.
    ``leak`` makes it ignore the owner filter (a buggy or hostile server).
    """

    def __init__(
        self,
        api_key: str | None = "generic-secret",
        *,
        routes: dict[str, str] | None = None,
        params: dict[str, str] | None = None,
        fields: dict[str, str] | None = None,
        items: str = "data",
        id_param: str = "id",
    ) -> None:
        super().__init__(api_key)
        r = {
            "health": "/health",
            "search": "/memories/search",
            "collection": "/memories",
            "item": "/memories/{" + id_param + "}",
            **(routes or {}),
        }
        self.routes = {name: _route(path) for name, path in r.items()}
        self.id_param = id_param
        self.params = {
            "query": "query",
            "apiKeyId": "apiKeyId",
            "limit": "limit",
            "offset": "offset",
            "type": "type",
            "sessionId": "sessionId",
            **(params or {}),
        }
        self.fields = fields or {}
        self.items = items
        self.leak = False
        self.records: dict[str, dict[str, Any]] = {}  # id -> record in Engram's names

    # records in the API's own shape
    def _out(self, record: dict[str, Any], score: float | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {}
        for name, value in {**record, **({"score": score} if score is not None else {})}.items():
            path = self.fields.get(name, name).split(".")
            target = body
            for part in path[:-1]:
                target = target.setdefault(part, {})
            target[path[-1]] = value
        return body

    def _in(self, body: dict[str, Any]) -> dict[str, Any]:
        record: dict[str, Any] = {}
        for name in ("content", "key", "type", "sessionId", "metadata", "apiKeyId"):
            value: Any = body
            for part in self.fields.get(name, name).split("."):
                value = value.get(part) if isinstance(value, dict) else None
            if value is not None:
                record[name] = value
        return record

    def _list(self, found: list[dict[str, Any]], total: int | None = None) -> Any:
        if not self.items:
            return found
        body: dict[str, Any] = {}
        target = body
        parts = self.items.split(".")
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = found
        body["total"] = len(found) if total is None else total
        return body

    def _owned(self, query: dict[str, list[str]]) -> list[dict[str, Any]]:
        owners = query.get(self.params["apiKeyId"], [])
        records = list(self.records.values())
        if self.leak:
            return records
        return [r for r in records if r["apiKeyId"] in owners] if owners else records

    def handle(self, request: Recorded) -> tuple[int, Any, str]:
        if not self.authorized(request["headers"]):
            return 401, {"error": "unauthorized"}, "application/json"
        method, path, query = request["method"], request["path"], request["query"]
        one = lambda name: (query.get(self.params[name]) or [None])[0]  # noqa: E731
        now = datetime.now(UTC).isoformat()
        if self.routes["health"].match(path) and method == "GET":
            return 200, {"status": "ok"}, "application/json"
        if self.routes["search"].match(path) and method == "GET":
            words = (one("query") or "").lower().split()
            hits = []
            for record in self._owned(query):
                text = record["content"].lower()
                score = sum(w in text for w in words) / max(len(words), 1)
                if score > 0:
                    hits.append((score, record))
            hits.sort(key=lambda h: h[0], reverse=True)
            limit = int(one("limit") or 20)
            return 200, self._list([self._out(r, s) for s, r in hits[:limit]]), "application/json"
        if self.routes["collection"].match(path):
            if method == "POST":
                record = self._in(json.loads(request["body"] or "{}"))
                if "content" not in record or "apiKeyId" not in record:
                    return 400, {"error": "content and owner required"}, "application/json"
                existing = next(
                    (
                        r
                        for r in self.records.values()
                        if r["apiKeyId"] == record["apiKeyId"] and r.get("key") == record.get("key")
                    ),
                    None,
                )
                if existing is not None:
                    existing.update(record, updatedAt=now)
                    return 200, self._out(existing), "application/json"
                record = {"id": uuid.uuid4().hex, **record, "createdAt": now, "updatedAt": now}
                self.records[record["id"]] = record
                return 201, self._out(record), "application/json"
            if method == "GET":
                found = self._owned(query)
                offset, limit = int(one("offset") or 0), int(one("limit") or 50)
                page = [self._out(r) for r in found[offset : offset + limit]]
                return 200, self._list(page, len(found)), "application/json"
        match = self.routes["item"].match(request["raw_path"])
        if match:
            record = self.records.get(unquote(match.group(self.id_param)))
            owners = query.get(self.params["apiKeyId"], [])
            if record is None or (owners and record["apiKeyId"] not in owners and not self.leak):
                return 404, {"error": "not found"}, "application/json"
            if method == "GET":
                return 200, self._out(record), "application/json"
            if method in ("PUT", "PATCH"):
                record.update(self._in(json.loads(request["body"] or "{}")), updatedAt=now)
                return 200, self._out(record), "application/json"
            if method == "DELETE":
                del self.records[record["id"]]
                return 204, None, "application/json"
        return 404, {"error": "no route"}, "application/json"


# -- Obsidian's Local REST API ------------------------------------------------------------------

NOTE_JSON = "application/vnd.olrapi.note+json"


def _front_matter(text: str) -> dict[str, Any]:
    if not text.startswith("---\n"):
        return {}
    end = text.find("\n---\n", 4)
    if end < 0:
        return {}
    loaded = yaml.safe_load(text[4:end])
    return loaded if isinstance(loaded, dict) else {}


def _logic(rule: Any, data: Any) -> Any:
    """The JsonLogic operators Engram sends (jsonlogic.com), plus the plugin's ``glob``."""
    if isinstance(rule, list):
        return [_logic(r, data) for r in rule]
    if not isinstance(rule, dict) or len(rule) != 1:
        return rule
    ((op, args),) = rule.items()
    args = args if isinstance(args, list) else [args]
    if op == "var":
        path = _logic(args[0], data)
        value = data
        for part in str(path).split(".") if path != "" else []:
            value = value.get(part) if isinstance(value, dict) else None
        return value
    if op == "if":
        return _logic(args[1], data) if _logic(args[0], data) else _logic(args[2], data)
    if op == "and":
        value = True
        for arg in args:
            value = _logic(arg, data)
            if not value:
                return value
        return value
    if op == "or":
        for arg in args:
            value = _logic(arg, data)
            if value:
                return value
        return False
    values = [_logic(a, data) for a in args]
    if op == "==":
        return values[0] == values[1]
    if op == "in":
        return values[1] is not None and values[0] in values[1]
    if op == "glob":
        return isinstance(values[1], str) and fnmatch.fnmatchcase(values[1], values[0])
    raise ValueError(f"unsupported operator {op}")


class ObsidianServer(_Server):
    def __init__(self, api_key: str | None = "obsidian-secret") -> None:
        super().__init__(api_key)
        self.vault: dict[str, str] = {}  # vault path -> file text

    def note(self, path: str) -> dict[str, Any]:
        text = self.vault[path]
        front = _front_matter(text)
        return {
            "content": text,
            "frontmatter": front,
            "path": path,
            "stat": {"ctime": 0, "mtime": 0, "size": len(text)},
            "tags": [f"#{t}" for t in front.get("tags", []) if isinstance(t, str)],
            "links": [],
            "backlinks": [],
            "unresolvedLinks": [],
        }

    def handle(self, request: Recorded) -> tuple[int, Any, str]:
        method, path = request["method"], request["path"]
        if path == "/" and method == "GET":
            authed = self.authorized(request["headers"])
            body = {
                "ok": "OK",
                "service": "Obsidian Local REST API",
                "authenticated": authed,
                "versions": {"obsidian": "1.8.0", "self": "3.2.0"},
            }
            return 200, body, "application/json"
        if not self.authorized(request["headers"]):
            return (
                401,
                {"errorCode": 40101, "message": "Authorization required."},
                "application/json",
            )
        if path.startswith("/vault/"):
            file = path[len("/vault/") :]
            if method == "PUT":
                self.vault[file] = request["body"]
                return 204, None, "application/json"
            if file not in self.vault:
                return 404, {"errorCode": 40400, "message": "File not found"}, "application/json"
            if method == "GET":
                if request["headers"].get("Accept") == NOTE_JSON:
                    return 200, self.note(file), NOTE_JSON
                return 200, self.vault[file], "text/markdown"
            if method == "DELETE":
                del self.vault[file]
                return 204, None, "application/json"
        if path == "/search/" and method == "POST":
            kind = request["headers"].get("Content-Type", "")
            if kind != "application/vnd.olrapi.jsonlogic+json":
                return 400, {"errorCode": 40000, "message": "unsupported"}, "application/json"
            rule = json.loads(request["body"])
            found = []
            for file in sorted(self.vault):
                result = _logic(rule, self.note(file))
                if result not in (False, None, 0, [], {}):
                    found.append({"filename": file, "result": result})
            return 200, found, "application/json"
        return 404, {"errorCode": 40400, "message": "Not found"}, "application/json"


# -- Notion's public API --------------------------------------------------------------------------


def _plain_of(prop: dict[str, Any]) -> str:
    parts = prop.get(prop.get("type", "rich_text"), [])
    return "".join(p.get("plain_text", "") for p in parts)


def _notion_error(status: int, code: str, message: str) -> tuple[int, Any, str]:
    body = {"object": "error", "status": status, "code": code, "message": message}
    return status, body, "application/json"


class NotionServer(_Server):
    """A stand-in for Notion's REST API (developers.notion.com), built from its public
    documentation: ``Authorization: Bearer`` and a ``Notion-Version`` header on every
    request; ``POST /v1/pages``, ``GET|PATCH /v1/pages/{id}`` (``archived: true`` is the
    delete), ``GET /v1/databases/{id}``, ``POST /v1/databases/{id}/query`` (compound
    ``and``/``or`` filters of ``title``/``rich_text`` conditions ``equals``, ``contains``,
    ``is_not_empty``; ``created_time`` sorts; cursor paging); errors as
    ``{"object": "error", "status", "code", "message"}``. Property names are checked
    against the database's schema, as Notion does. It is not Notion."""

    VERSION = "2022-06-28"

    def __init__(self, api_key: str | None = "secret_notion", page_size: int = 100) -> None:
        super().__init__(api_key)
        self.database_id = str(uuid.uuid4())
        self.schema = {
            "Name": "title",
            "Content": "rich_text",
            "API Key": "rich_text",
            "Key": "rich_text",
            "Type": "rich_text",
            "Session": "rich_text",
            "Metadata": "rich_text",
        }
        self.pages: dict[str, dict[str, Any]] = {}
        self.page_size = page_size  # the most this server returns per query page
        self._clock = 0

    def _stored(self, props: dict[str, Any]) -> dict[str, Any] | str:
        out = {}
        for name, value in props.items():
            kind = self.schema.get(name)
            if kind is None or kind not in value:
                return f"{name} is not a property that exists."
            texts = value[kind]
            for part in texts:
                if len(part["text"]["content"]) > 2000:
                    return "body.properties.text.content.length should be ≤ `2000`"
            out[name] = {
                "id": name[:4],
                "type": kind,
                kind: [
                    {"type": "text", "text": part["text"], "plain_text": part["text"]["content"]}
                    for part in texts
                ],
            }
        return out

    def _match(self, page: dict[str, Any], rule: dict[str, Any]) -> bool:
        if "and" in rule:
            return all(self._match(page, r) for r in rule["and"])
        if "or" in rule:
            return any(self._match(page, r) for r in rule["or"])
        prop = page["properties"].get(rule["property"])
        ((_, condition),) = ((k, v) for k, v in rule.items() if k != "property")
        text = _plain_of(prop) if prop else ""
        ((op, value),) = condition.items()
        if op == "equals":
            return text == value
        if op == "contains":
            return value.lower() in text.lower()  # Notion's contains ignores case
        if op == "is_not_empty":
            return bool(text)
        raise ValueError(op)

    def handle(self, request: Recorded) -> tuple[int, Any, str]:
        if not self.authorized(request["headers"]):
            return _notion_error(401, "unauthorized", "API token is invalid.")
        if request["headers"].get("Notion-Version") != self.VERSION:
            return _notion_error(400, "missing_version", "Notion-Version header missing.")
        method, path = request["method"], request["path"]
        body = json.loads(request["body"]) if request["body"] else {}
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        database = f"/v1/databases/{self.database_id}"
        if path == database and method == "GET":
            return 200, {"object": "database", "id": self.database_id}, "application/json"
        if path == database + "/query" and method == "POST":
            found = [
                p
                for p in self.pages.values()
                if not p["archived"] and self._match(p, body.get("filter", {"and": []}))
            ]
            found.sort(key=lambda p: p["_order"], reverse=True)
            start = int(body.get("start_cursor") or 0)
            size = min(int(body.get("page_size", 100)), self.page_size)
            chunk = found[start : start + size]
            more = start + size < len(found)
            answer = {
                "object": "list",
                "results": [{k: v for k, v in p.items() if k != "_order"} for p in chunk],
                "has_more": more,
                "next_cursor": str(start + size) if more else None,
            }
            return 200, answer, "application/json"
        if path.startswith("/v1/databases/"):
            return _notion_error(404, "object_not_found", "Could not find database.")
        if path == "/v1/pages" and method == "POST":
            if body.get("parent", {}).get("database_id") != self.database_id:
                return _notion_error(404, "object_not_found", "Could not find database.")
            props = self._stored(body.get("properties", {}))
            if isinstance(props, str):
                return _notion_error(400, "validation_error", props)
            self._clock += 1
            page = {
                "object": "page",
                "id": str(uuid.uuid4()),
                "created_time": now,
                "last_edited_time": now,
                "archived": False,
                "parent": {"type": "database_id", "database_id": self.database_id},
                "properties": props,
                "_order": self._clock,
            }
            self.pages[page["id"]] = page
            return 200, {k: v for k, v in page.items() if k != "_order"}, "application/json"
        if path.startswith("/v1/pages/"):
            page = self.pages.get(path[len("/v1/pages/") :])
            if page is None:
                return _notion_error(404, "object_not_found", "Could not find page.")
            if method == "PATCH":
                if "archived" in body:
                    page["archived"] = bool(body["archived"])
                props = self._stored(body.get("properties", {}))
                if isinstance(props, str):
                    return _notion_error(400, "validation_error", props)
                page["properties"].update(props)
                page["last_edited_time"] = now
            return 200, {k: v for k, v in page.items() if k != "_order"}, "application/json"
        return _notion_error(400, "invalid_request_url", "Invalid request URL.")
