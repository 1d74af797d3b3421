"""A scripted OpenAI-compatible model server, run as its own process on 127.0.0.1.

It stands in for a paid API in the LLM extractor's tests: ``POST /v1/chat/completions``
answers what the test scripted, in the form the request asked for (``json_schema`` or
JSON mode: the answer as the message content; a forced tool call: as its arguments).

Control, over HTTP (the tests talk to the process as the engine does):
- ``POST /_script`` ``{"responses": [...]}``: answers to give, in order, one per call;
  each ``{"memories": [...]}`` (the answer), ``{"raw": "text"}`` (content as is, e.g.
  not JSON), ``{"status": 500}``, or any of these with ``"sleep": seconds`` first and
  ``"tokens": n`` as the usage it reports.
  With the script empty the answer is ``{"memories": []}``.
- ``POST /_lacks`` ``{"formats": ["json_schema", "json_object"], "status": 400}``:
  refuse those response formats with that status (400 by default) naming them, as
  servers without structured output do (llama-cpp-python's answers 500).
- ``GET /_requests``: every completion request received, in order; ``POST /_reset``.

Run: ``python -m tests.support.scripted_llm`` (prints ``PORT <n>`` once listening).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from shared.devtools.local_servers import stop

ROOT = Path(__file__).resolve().parents[2]


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.script: list[dict[str, Any]] = []
        self.lacks: set[str] = set()
        self.lacks_status = 400
        self.requests: list[dict[str, Any]] = []


STATE = _State()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        # The client may have given up waiting (a "too slow" script): nothing to tell it.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)

    def _body(self) -> Any:
        length = int(self.headers.get("content-length", "0"))
        return json.loads(self.rfile.read(length) or b"{}")

    def do_GET(self) -> None:
        if self.path == "/_requests":
            with STATE.lock:
                self._json(200, STATE.requests)
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        body = self._body()
        if self.path == "/_script":
            with STATE.lock:
                STATE.script.extend(body["responses"])
            self._json(200, {"ok": True})
        elif self.path == "/_lacks":
            with STATE.lock:
                STATE.lacks = set(body["formats"])
                STATE.lacks_status = int(body.get("status", 400))
            self._json(200, {"ok": True})
        elif self.path == "/_reset":
            with STATE.lock:
                STATE.script.clear()
                STATE.lacks.clear()
                STATE.lacks_status = 400
                STATE.requests.clear()
            self._json(200, {"ok": True})
        elif self.path == "/v1/chat/completions":
            self._complete(body)
        else:
            self._json(404, {"error": "not found"})

    def _complete(self, body: dict[str, Any]) -> None:
        with STATE.lock:
            STATE.requests.append({"body": body, "headers": dict(self.headers)})
            asked = (body.get("response_format") or {}).get("type")
            if asked in STATE.lacks:
                message = f"response_format {asked} is unsupported"
                self._json(STATE.lacks_status, {"error": {"message": message}})
                return
            step = STATE.script.pop(0) if STATE.script else {"memories": []}
        if step.get("sleep"):
            time.sleep(float(step["sleep"]))
        if "status" in step:
            self._json(int(step["status"]), {"error": {"message": "scripted failure"}})
            return
        content = step["raw"] if "raw" in step else json.dumps({"memories": step["memories"]})
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": name, "arguments": content},
                    }
                ],
            }
        self._json(
            200,
            {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {
                    "prompt_tokens": 100,
                    "completion_tokens": 20,
                    "total_tokens": int(step.get("tokens", 120)),
                },
            },
        )


def serve() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


@dataclass
class ScriptedModel:
    """The server, as a test holds it."""

    process: subprocess.Popen[str]
    base: str

    @property
    def url(self) -> str:
        return f"{self.base}/v1"

    def script(self, *responses: dict[str, Any]) -> None:
        httpx.post(f"{self.base}/_script", json={"responses": list(responses)}).raise_for_status()

    def lacks(self, *formats: str, status: int = 400) -> None:
        body = {"formats": list(formats), "status": status}
        httpx.post(f"{self.base}/_lacks", json=body).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        response = httpx.get(f"{self.base}/_requests")
        response.raise_for_status()
        found: list[dict[str, Any]] = response.json()
        return found

    def reset(self) -> None:
        httpx.post(f"{self.base}/_reset", json={}).raise_for_status()


@contextmanager
def scripted_model() -> Iterator[ScriptedModel]:
    """The server in a process of its own; stopped on exit."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.scripted_llm"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"the scripted model did not start: {line!r}")
        yield ScriptedModel(process, f"http://127.0.0.1:{int(line.split()[1])}")
    finally:
        stop(process)


if __name__ == "__main__":
    serve()
