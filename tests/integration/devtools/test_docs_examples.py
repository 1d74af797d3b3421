"""The docs' Python example runs as written, on a fresh database, in a fresh process."""

from __future__ import annotations

import os
import re
import subprocess
import sys

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
