"""The docs' Python example runs as written, on a fresh database, in a fresh process."""

from __future__ import annotations

import hmac
import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

from shared.devtools.template import ROOT


def test_the_getting_started_python_example_runs_and_finds_what_it_stored(tmp_path):
    page = (ROOT / "docs" / "getting-started.md").read_text()
    section = page.split("## Using the engine from Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    env = os.environ | {
        "ENGRAM_DB_URL": f"file:{tmp_path / 'engram.db'}",
        "ENGRAM_DATA_DIR": str(tmp_path / "data"),
    }
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Postgres" in out.stdout  # the fact learnt from the message, found by the search


# -- the streamed chat's client: SigV4 for a Function URL with IAM auth ---------------------

_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/EXAMPLE",
}
_CHUNK = {
    "id": "chatcmpl-1",
    "object": "chat.completion.chunk",
    "created": 0,
    "model": "gpt-4o-mini",
    "choices": [{"index": 0, "delta": {"content": "signed and streamed"}, "finish_reason": None}],
}


class _FunctionUrl(BaseHTTPRequestHandler):
    """Checks a request as a Function URL with AWS_IAM auth does (the signature over the
    method, path, signed headers and body hash, for service "lambda"), then streams."""

    key = "egm_example"
    seen: ClassVar[list[dict[str, str]]] = []

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        headers = {k.lower(): v for k, v in self.headers.items()}
        type(self).seen.append(headers)
        if not self._signed(headers, body) or headers.get("x-engram-api-key") != self.key:
            self.send_response(403)
            self.end_headers()
            self.wfile.write(b'{"Message":"Forbidden"}')
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.wfile.write(f"data: {json.dumps(_CHUNK)}\n\ndata: [DONE]\n\n".encode())

    def _signed(self, headers: dict[str, str], body: bytes) -> bool:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        found = re.fullmatch(
            r"AWS4-HMAC-SHA256 Credential=(\S+?)/(\d{8})/([\w-]+)/lambda/aws4_request, "
            r"SignedHeaders=([\w;-]+), Signature=([0-9a-f]{64})",
            headers.get("authorization", ""),
        )
        if found is None or found.group(1) != _CREDENTIALS["AWS_ACCESS_KEY_ID"]:
            return False
        signed = found.group(4).split(";")
        request = AWSRequest(
            method="POST",
            url=f"http://{headers['host']}{self.path}",
            data=body,
            headers={name: headers[name] for name in signed if name != "host"}
            | {"host": headers["host"]},
        )
        request.context["timestamp"] = headers["x-amz-date"]
        signer = SigV4Auth(
            Credentials(_CREDENTIALS["AWS_ACCESS_KEY_ID"], _CREDENTIALS["AWS_SECRET_ACCESS_KEY"]),
            "lambda",
            found.group(3),
        )
        expected = signer.signature(
            signer.string_to_sign(request, signer.canonical_request(request)), request
        )
        return hmac.compare_digest(expected, found.group(5))


def test_the_streamed_chat_client_example_signs_its_requests_as_lambda_checks(tmp_path):
    page = (ROOT / "docs" / "deployment.md").read_text()
    section = page.split("### Streaming: the Function URL, with IAM auth", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FunctionUrl)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = (
        os.environ
        | _CREDENTIALS
        | {
            "STREAM_URL": f"http://127.0.0.1:{server.server_port}/",
            "ENGRAM_KEY": _FunctionUrl.key,
            "AWS_REGION": "eu-west-1",
        }
    )
    env.pop("AWS_SESSION_TOKEN", None)
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
        )
    finally:
        server.shutdown()
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout == "signed and streamed"
    (headers,) = _FunctionUrl.seen
    assert headers["authorization"].startswith("AWS4-HMAC-SHA256 ")  # not the SDK's bearer
    assert "x-engram-api-key" in headers["authorization"]  # the key is under the signature
