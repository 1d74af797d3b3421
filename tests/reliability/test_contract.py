"""The OpenAPI document tells the truth: Schemathesis over every operation of a real
``engram serve``, every check, stateful links included, bounded in time.

The management API is called with the admin token and the chat proxy with an API key
(``schemathesis.toml``); the chat proxy forwards to a stub upstream on loopback.
What JSON Schema cannot state is told to the generator in ``schemathesis_hooks.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server import ROOT, engram_server
from tests.support.upstream_stub import StubUpstream

HERE = Path(__file__).resolve().parent
# Seconds of generation; CI may give more (ENGRAM_FUZZ_SECONDS).
BUDGET_S = int(os.environ.get("ENGRAM_FUZZ_SECONDS", "150"))


@pytest.mark.slow
def test_schemathesis_finds_no_failure(tmp_path):
    with (
        StubUpstream(record=False) as stub,
        engram_server(
            tmp_path, ENGRAM_UPSTREAM_BASE_URL=stub.url, ENGRAM_UPSTREAM_API_KEY="sk-stub"
        ) as server,
    ):
        server.settings(enabled=True)
        env = {
            **os.environ,
            "ENGRAM_FUZZ_ADMIN_TOKEN": server.token,
            "ENGRAM_FUZZ_API_KEY": server.api_key("fuzz"),
            "SCHEMATHESIS_HOOKS": "tests.reliability.schemathesis_hooks",
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "layers" / "engram")]),
        }
        out = subprocess.run(
            [
                str(Path(sys.executable).parent / "schemathesis"),
                "--config-file",
                str(HERE / "schemathesis.toml"),
                "run",
                f"{server.base}/openapi.json",
                "--checks",
                "all",
                "--max-time",
                str(BUDGET_S),
                "--workers",
                "2",
                "--seed",
                "7",
                "--generation-database",
                "none",
                "--report-dir",
                str(tmp_path / "report"),
            ],
            cwd=tmp_path,  # schemathesis writes .schemathesis/ where it runs
            env=env,
            capture_output=True,
            text=True,
            timeout=BUDGET_S * 3 + 120,
            check=False,
        )
    summary = out.stdout[-6000:]
    print(summary)
    assert out.returncode == 0, summary + out.stderr[-2000:]
