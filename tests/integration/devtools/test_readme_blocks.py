"""Every shell block of the README runs, in order, in one shell, against a real
``engram serve`` and a stub upstream: what a newcomer copies works.

The blocks run as written but for what the harness must do itself, each stated here:
- ``make serve`` (re)starts ``engram serve`` in the background, in the block's
  environment, and waits until it answers; the commands after it run "in another
  shell" as the README says. ``make serve`` itself would first install into the checkout.
- The upstream is the stub's URL instead of a provider's (the block's export of
  ``ENGRAM_UPSTREAM_BASE_URL`` stays: the stub's is exported after it).
- Port 8080 becomes a free port, so a server a developer left running does not answer.
- ``make test`` is CI's own command (``.ci/run`` runs it); it is not run again from
  inside the tests.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from shared.devtools.local_servers import free_port
from shared.devtools.template import ROOT
from tests.support.upstream_stub import StubUpstream

README = ROOT / "README.md"

START = """\
if [ -n "${{SERVER:-}}" ]; then kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; fi
ENGRAM_UPSTREAM_BASE_URL={stub} engram serve --port {port} > serve.log 2>&1 &
SERVER=$!
for _ in $(seq 1 300); do
  curl -s -o /dev/null localhost:{port}/studio && break
  kill -0 "$SERVER" 2>/dev/null || {{ cat serve.log; exit 1; }}
  sleep 0.1
done
"""


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def adapt(block: str, port: int, stub: str) -> str:
    lines = []
    for line in block.splitlines():
        command = line.split("#", 1)[0].strip()
        if command == "make serve":
            lines.append(START.format(port=port, stub=stub))
        elif command == "make test":
            lines.append(": make test runs in CI itself")
        else:
            lines.append(line.replace("localhost:8080", f"localhost:{port}"))
    return "\n".join(lines)


def test_the_readme_has_the_blocks_this_test_knows_how_to_run():
    blocks = shell_blocks(README.read_text())
    assert len(blocks) >= 3
    assert "make serve" in blocks[0] and "make test" in blocks[0]
    unknown = {
        line.split()[0]
        for block in blocks
        for line in block.splitlines()
        if line.strip() and not line.startswith((" ", "#"))
    } - {"make", "export", "TOKEN=$(cat", "KEY=$(curl", "curl", "#"}
    assert not unknown, f"a README command this harness does not expect: {unknown}"


def test_every_shell_block_of_the_readme_runs_against_engram_serve(tmp_path):
    port = free_port()
    with StubUpstream() as stub:
        script = "\n".join(
            ["set -euo pipefail", 'trap \'[ -n "${SERVER:-}" ] && kill "$SERVER"\' EXIT']
            + [
                f"echo; echo '--- block {n}'\n{adapt(block, port, stub.url)}"
                for n, block in enumerate(shell_blocks(README.read_text()))
            ]
            + ['echo; echo "KEY=$KEY"']
        )
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("ENGRAM_")  # a newcomer's shell has none of ours
        }
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])
        out = subprocess.run(
            [shutil.which("bash") or "/bin/bash", "-c", script],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    log = out.stdout + out.stderr + (tmp_path / "serve.log").read_text()
    assert out.returncode == 0, log[-4000:]
    key = re.search(r"^KEY=(\S*)$", out.stdout, re.M)
    assert key and key.group(1).startswith("egm_"), log[-4000:]
    assert '"enabled":true' in out.stdout.replace(" ", "")  # memory switched on
    assert "Prefers TypeScript" in out.stdout.split("--- block 2", 1)[1]  # the preview found it
    assert (tmp_path / ".engram" / "admin-token").exists()  # where the README reads it
