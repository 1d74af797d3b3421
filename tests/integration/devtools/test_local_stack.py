"""``engram serve`` as the quickstart runs it: a real process, a real port."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
from pydantic import SecretStr

from engram import Config
from shared.devtools.local import ensure_admin_token
from shared.devtools.local_servers import free_port


def test_serve_creates_a_token_and_answers_health(tmp_path: Path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env |= {"ENGRAM_DATA_DIR": str(tmp_path / "data"), "ENGRAM_DB_URL": f"file:{tmp_path}/e.db"}
    process = subprocess.Popen(
        [sys.executable, "-m", "shared.devtools.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first_line = process.stdout.readline()
        assert first_line.startswith("Created an admin token: "), first_line
        token = first_line.split(": ", 1)[1].strip()
        assert (tmp_path / "data" / "admin-token").read_text().strip() == token
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.get(
                    f"http://127.0.0.1:{port}/api/memory/health",
                    headers={"Authorization": f"Bearer {token}"},
                )
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.1)
        assert response.status_code == 200
        assert response.json()["working"] is True
        assert httpx.get(f"http://127.0.0.1:{port}/api/memory/health").status_code == 401
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_admin_token_file_is_private_and_reused(tmp_path: Path):
    config = Config(data_dir=tmp_path)
    with_token, path, created = ensure_admin_token(config)
    assert created and path is not None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again, _, created_again = ensure_admin_token(config)
    assert not created_again
    assert again.admin_token == with_token.admin_token
    given = Config(data_dir=tmp_path / "other", admin_token=SecretStr("from-env"))
    assert ensure_admin_token(given) == (given, None, False)
    assert not (tmp_path / "other").exists()
