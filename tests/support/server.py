"""A real ``engram serve`` process on a free loopback port, as the quickstart runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from shared.devtools.local_servers import answering, free_port, stop

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "reliability-admin-token"


@dataclass
class Server:
    base: str
    token: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def admin(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def api_key(self, name: str = "test") -> str:
        response = httpx.post(f"{self.base}/api/keys", json={"name": name}, headers=self.admin)
        response.raise_for_status()
        return str(response.json()["secret"])

    def settings(self, **changes: object) -> None:
        response = httpx.put(
            f"{self.base}/api/settings/memory", json=changes, headers=self.admin, timeout=30
        )
        response.raise_for_status()


@contextmanager
def engram_server(tmp: Path, **environment: str) -> Iterator[Server]:
    """``engram serve`` with its own database under ``tmp``; stopped on exit."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "MEMORY_"))}
    env |= {
        "ENGRAM_DATA_DIR": str(tmp / "data"),
        "ENGRAM_DB_URL": f"file:{tmp}/engram.db",
        "ENGRAM_ADMIN_TOKEN": TOKEN,
        **environment,
    }
    log = tmp / f"server-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "shared.devtools.cli", "serve", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Server(f"http://127.0.0.1:{port}", TOKEN, process, log)
    try:
        health = f"{server.base}/api/memory/health"
        if not answering(health, process, 60, request_timeout=5.0, headers=server.admin):
            raise RuntimeError(f"engram serve did not start:\n{log.read_text()[-2000:]}")
        yield server
    finally:
        stop(process, timeout=15)
