"""A real OpenAI-compatible HTTP server on 127.0.0.1 standing in for the upstream LLM.

It records every request it receives and answers as told: ``ok`` (a completion, or
Server-Sent Events when the request asks to stream), ``fail`` (HTTP 500), ``hang``
(answers after ``hang_s``) or ``garbage`` (HTTP 200 whose body is not JSON). A stream
can be held after its first chunk until ``gate`` is set, which lets a test prove the
proxy relays chunks as they come.
Used by the tests and by ``bench/proxy_overhead.py``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["StubUpstream"]


class StubUpstream:
    def __init__(self, reply: str = "Noted, I will remember that.", *, record: bool = True) -> None:
        self.reply = reply
        self.mode = "ok"
        self.hang_s = 5.0
        self.gate: threading.Event | None = None
        self.record = record  # False: long runs keep no list of every request
        self.requests: list[dict[str, Any]] = []
        # /v1/embeddings: the status of each next call (then 200), and the dimension.
        self.embedding_statuses: list[int] = []
        self.embedding_dim = 8
        self.embedding_calls = 0
        # /v1/rerank: scores documents by how many query words they contain.
        self.rerank_statuses: list[int] = []
        self.rerank_calls = 0
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> str:
        stub = self

        class Handler(_Handler):
            upstream = stub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self.url

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> StubUpstream:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answers ------------------------------------------------------------------------

    def completion(self, model: str) -> dict[str, Any]:
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.reply},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 7, "total_tokens": 17},
        }

    def vector(self, text: str) -> list[float]:
        """A deterministic vector per text; texts sharing words get closer vectors."""
        out = [0.0] * self.embedding_dim
        for word in text.lower().split():
            digest = hashlib.sha256(word.encode()).digest()
            for i in range(self.embedding_dim):
                out[i] += digest[i] / 255 - 0.5
        return out

    def chunks(self, model: str) -> list[bytes]:
        words = self.reply.split(" ")
        events = []
        for i, word in enumerate(words):
            delta = {"content": word if i == 0 else " " + word}
            chunk = {
                "id": "chatcmpl-stub",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
            }
            events.append(f"data: {json.dumps(chunk)}\n\n".encode())
        events.append(b"data: [DONE]\n\n")
        return events


class _Handler(BaseHTTPRequestHandler):
    upstream: StubUpstream
    protocol_version = "HTTP/1.1"  # keep-alive, as real providers do
    # As production HTTP servers do. With Nagle on, this handler's separate header and
    # body writes stalled each keep-alive response ~40 ms on the reader's delayed ACK
    # (bench/proxy_overhead.py showed 48 ms of "overhead" that was the stub's own).
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self._send_json(200, {"object": "list", "data": [{"id": "stub-model"}]})
        else:
            self._send_json(404, {"error": {"message": "no such route"}})

    def do_POST(self) -> None:
        stub = self.upstream
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if stub.record:
            stub.requests.append({"path": self.path, "headers": dict(self.headers), "json": body})
        if stub.mode == "hang":
            time.sleep(stub.hang_s)
        if self.path.rstrip("/") == "/v1/rerank":
            stub.rerank_calls += 1
            status = stub.rerank_statuses.pop(0) if stub.rerank_statuses else 200
            if status != 200:
                self._send_json(status, {"error": {"message": f"status {status}"}})
                return
            words = set(body["query"].lower().split())
            results = [
                {"index": i, "relevance_score": len(words & set(doc.lower().split()))}
                for i, doc in enumerate(body["documents"])
            ]
            self._send_json(200, {"results": results})
            return
        if self.path.rstrip("/") == "/v1/embeddings":
            stub.embedding_calls += 1
            status = stub.embedding_statuses.pop(0) if stub.embedding_statuses else 200
            if status != 200:
                self._send_json(status, {"error": {"message": f"status {status}"}})
                return
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            data = [
                {"object": "embedding", "index": i, "embedding": stub.vector(t)}
                for i, t in enumerate(texts)
            ]
            self._send_json(200, {"object": "list", "data": data, "model": body.get("model")})
            return
        if stub.mode == "garbage":
            data = b"<html>upstream gateway page, not JSON</html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if stub.mode == "fail":
            self._send_json(
                500, {"error": {"message": "upstream exploded", "type": "server_error"}}
            )
            return
        model = str(body.get("model", "stub-model"))
        if not body.get("stream"):
            self._send_json(200, stub.completion(model))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i, chunk in enumerate(stub.chunks(model)):
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.flush()
            if i == 0 and stub.gate is not None:
                stub.gate.wait(timeout=10)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
