"""A bounded soak in CI: several client processes of mixed traffic against a real server
(bench/soak.py). No request may fail and the server's memory may not keep growing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.lambda_support import ROOT

SECONDS = int(os.environ.get("ENGRAM_SOAK_SECONDS", "120"))


@pytest.mark.slow
def test_a_soak_has_no_errors_and_no_memory_growth():
    out = subprocess.run(
        [sys.executable, "bench/soak.py", "--seconds", str(SECONDS), "--clients", "4"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=SECONDS + 300,
        check=False,
    )
    print(out.stdout[-3000:])
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
