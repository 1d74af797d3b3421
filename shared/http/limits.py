"""Request bodies, bounded before anything reads them: size, then JSON shape.

An ASGI middleware, outside routing and authentication on purpose: a body too
large is refused with 413 before it is read whole (a declared length is refused
before a byte is read), so an anonymous client cannot make the server buffer
hundreds of megabytes. JSON bodies are then checked before the application parses
them: nesting depth (deep nesting crashes recursive parsers), NaN and Infinity
(not JSON), integers of thousands of digits (Python refuses to convert them) and
unpaired UTF-16 surrogates (text no store or provider can encode). Each refusal
is a 400 or 413 in the API's error shape, naming the limit.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["MAX_INT_DIGITS", "NDJSON", "BodyLimits", "is_json", "json_problem", "strict_loads"]

# Digits of the longest integer accepted (2**64 has 20); Python refuses > 4,300 anyway.
MAX_INT_DIGITS = 100
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = b"[]{}"
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)
NDJSON = "application/x-ndjson"
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _depth(raw: bytes, limit: int) -> int:
    """The deepest nesting of arrays and objects in ``raw`` (strings ignored)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return 0  # cannot be deeper than the limit: skip the scan
    brackets = _STRING.sub(b'""', raw).translate(None, _NOT_BRACKETS)
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max()) if steps.size else 0


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer has more than {MAX_INT_DIGITS} digits")
    return int(text)


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value


def strict_loads(document: bytes | str) -> Any:
    """``json.loads`` refusing what is not portable JSON: NaN and Infinity, numbers out
    of range, integers of more than ``MAX_INT_DIGITS`` digits, unpaired surrogates.

    Raises ``json.JSONDecodeError`` for malformed text and ``ValueError`` (with the
    reason) for the rest.
    """
    try:
        value = json.loads(
            document, parse_constant=_constant, parse_int=_integer, parse_float=_number
        )
    except RecursionError:
        raise ValueError("JSON nested too deep") from None
    raw = document.encode("utf-8", "surrogatepass") if isinstance(document, str) else document
    if _SURROGATE_ESCAPE.search(raw):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                "the text holds an unpaired UTF-16 surrogate (\\ud800-\\udfff)"
            ) from None
    return value


def json_problem(raw: bytes, max_depth: int, *, lines: bool = False) -> str | None:
    """Why ``raw`` is not acceptable JSON, or None. NDJSON (``lines``) is checked for depth
    only here: its lines are parsed, and their problems reported one by one, by the import.
    Malformed JSON is left to the application, which says where."""
    if _depth(raw, max_depth) > max_depth:
        return f"JSON nested deeper than {max_depth} levels"
    if lines:
        return None
    try:
        strict_loads(raw)
    except json.JSONDecodeError:
        return None
    except ValueError as exc:
        return str(exc)
    return None


def is_json(content_type: str) -> bool:
    """Whether FastAPI parses a body of this (lower-cased, parameterless) type as JSON:
    no type at all, ``*/json`` or ``*/*+json`` (``application/vnd.api+json``...). The
    checks must cover exactly what the application will parse, or a family member
    carries NaN or a lone surrogate past them."""
    if not content_type:
        return True
    subtype = content_type.partition("/")[2]
    return subtype == "json" or subtype.endswith("+json")


def _error(status: int, message: str, kind: str) -> tuple[int, bytes]:
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return status, json.dumps(body).encode("utf-8")


class BodyLimits:
    def __init__(
        self,
        app: ASGIApp,
        *,
        max_bytes: int,
        paths: Mapping[str, int] | None = None,
        max_depth: int = 64,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        # Path -> its own limit (the chat proxy, imports).
        self.paths = dict(paths or {})
        self.max_depth = max_depth

    def limit_for(self, path: str) -> int:
        return self.paths.get(path.rstrip("/") or "/", self.max_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await self._refuse(send, *_error(413, _too_large(limit), "request_too_large"))
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client went away; nothing to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._refuse(send, *_error(413, _too_large(limit), "request_too_large"))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if body and (is_json(content_type) or content_type == NDJSON):
            problem = json_problem(body, self.max_depth, lines=content_type == NDJSON)
            if problem is not None:
                await self._refuse(send, *_error(400, problem, "invalid_json"))
                return
        await self.app(scope, _replay(body, receive), send)

    @staticmethod
    async def _refuse(send: Send, status: int, body: bytes) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _too_large(limit: int) -> str:
    return f"the request body is larger than {limit} bytes"


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body read once more for the application, then the real channel (disconnects)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
