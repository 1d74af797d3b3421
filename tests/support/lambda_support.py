"""Running functions the way Lambda and API Gateway do, without either."""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import uvicorn
from fastapi import FastAPI

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def live_server(app: FastAPI) -> Iterator[str]:
    """A real uvicorn server on 127.0.0.1 and a free port, in a thread."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@dataclass
class LambdaContext:
    """The attributes of the Lambda runtime's context object that handlers read.

    No Lambda runtime can run here (no Docker), so tests pass this plain object.
    """

    function_name: str = "engram-test"
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:eu-west-1:123456789012:function:engram-test"
    aws_request_id: str = "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"


def load_event(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((ROOT / "events" / f"{name}.json").read_text())
    return event


def load_function(name: str) -> ModuleType:
    """Import ``functions/<name>/app.py`` the way Lambda does: its own module ``app``."""
    path = ROOT / "functions" / name / "app.py"
    spec = importlib.util.spec_from_file_location(f"lambda_{name}_app", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
