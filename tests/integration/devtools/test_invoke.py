"""`engram invoke`: one database shared by every function, nothing written inside a
CodeUri, and the deployment page's example working as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from shared.devtools.lambda_local import LOCAL_DB_URL, invoke_environment
from shared.devtools.template import ROOT, load_template

FUNCTIONS = load_template().functions()
GUIDE = (ROOT / "docs" / "deployment.md").read_text()


def guide_env_json() -> dict:
    block = GUIDE.split("with this `env.json`", 1)[1]
    return json.loads(re.search(r"```json\n(.*?)```", block, re.S).group(1))


def guide_invocations() -> list[list[str]]:
    return [
        line.split()[1:]
        for line in GUIDE.splitlines()
        if line.startswith(".venv/bin/engram invoke ")
    ]


def test_every_function_gets_the_same_database_outside_any_code_uri(monkeypatch):
    monkeypatch.delenv("ENGRAM_DB_URL", raising=False)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    urls = {invoke_environment(logical_id)["ENGRAM_DB_URL"] for logical_id in FUNCTIONS}
    assert urls == {LOCAL_DB_URL}
    path = LOCAL_DB_URL.removeprefix("file:")
    assert path.startswith("/")  # not relative to wherever the function runs
    assert not any(path.startswith(str(f.code_uri)) for f in FUNCTIONS.values())
    assert all(
        invoke_environment(i)["PYTHONDONTWRITEBYTECODE"] == "1" for i in FUNCTIONS
    )  # no __pycache__ in a CodeUri


def test_the_guide_token_is_the_one_the_sample_events_send():
    env_json = guide_env_json()
    for logical_id, command in ((c[1], c) for c in guide_invocations()):
        event = json.loads((ROOT / command[command.index("--event") + 1]).read_text())
        assert event["headers"]["authorization"] == (
            f"Bearer {env_json[logical_id]['ENGRAM_ADMIN_TOKEN']}"
        )


def _files_in_functions() -> set[str]:
    return {str(p) for p in (ROOT / "functions").rglob("*")}


def test_the_guide_example_runs_as_written_and_shares_its_database(tmp_path, monkeypatch):
    """The guide's commands and env.json, run from the checkout (only the database moved
    to a temporary file): what MemoryApiFunction creates, RetrievePreviewFunction finds."""
    (tmp_path / "env.json").write_text(json.dumps(guide_env_json()))
    before = _files_in_functions()
    outputs = []
    for command in guide_invocations():
        command = [str(tmp_path / "env.json") if a == "env.json" else a for a in command]
        env = {"ENGRAM_DB_URL": f"file:{tmp_path / 'shared.db'}"}
        out = subprocess.run(
            [sys.executable, "-m", "shared.devtools.cli", *command],
            cwd=ROOT,
            # Python would otherwise write app.py's bytecode beside it, into the CodeUri.
            env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode == 0, out.stderr[-3000:]
        outputs.append(json.loads(out.stdout[out.stdout.rindex("\n{") :]))
    created, preview = outputs
    assert created["statusCode"] == 201
    assert preview["statusCode"] == 200
    found = json.loads(preview["body"])
    assert [m["content"] for m in found["results"]] == ["TypeScript"], found
    assert _files_in_functions() == before  # nothing written inside a CodeUri
