"""The rules read in a process of their own (``engram serve``): the same reading as in
the server's process, at the lowest CPU priority, and never outliving the server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engram.adapters.extraction import RuleExtractor
from engram.adapters.process_extractor import OutOfProcess
from engram.domain.models.facts import ExtractionRequest, SpokenTurn
from tests.support.lambda_support import ROOT

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")

REQUEST = ExtractionRequest(
    owner="key_demo",
    turns=(
        SpokenTurn("user", "We finally adopted a rescue cat last weekend, called Biscuit."),
        SpokenTurn("user", "I prefer TypeScript and I live in Manchester."),
    ),
    at=datetime(2026, 11, 28, 10, tzinfo=UTC),
)


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue  # gone meanwhile
            # pid (comm) state ppid ...: comm may hold spaces, so split after its ")"
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and _pool_worker(entry):
                found.append(int(entry.name))
    return found


def _pool_worker(entry: Path) -> bool:
    # multiprocessing may start a resource tracker too: only the pool's workers count
    try:
        return b"spawn_main" in (entry / "cmdline").read_bytes()
    except OSError:
        return False


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_the_worker_reads_as_the_server_would_at_the_lowest_priority():
    before = set(children(os.getpid()))
    reader = OutOfProcess(RuleExtractor())
    try:
        assert reader.extract(REQUEST) == RuleExtractor().extract(REQUEST)
        (worker,) = set(children(os.getpid())) - before
        assert os.getpriority(os.PRIO_PROCESS, worker) == 19
    finally:
        reader.close()
    assert wait_gone(worker)  # closed: killed, not waited for


def test_a_server_killed_outright_takes_its_worker_with_it(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(
        "import os, sys\n"
        "from datetime import UTC, datetime\n"
        "from engram.adapters.process_extractor import OutOfProcess\n"
        "from engram.adapters.extraction import RuleExtractor\n"
        "from engram.domain.models.facts import ExtractionRequest, SpokenTurn\n"
        "if __name__ == '__main__':\n"  # spawned workers import this file again
        "    reader = OutOfProcess(RuleExtractor())\n"
        "    turns = (SpokenTurn('user', 'I have a cat.'),)\n"
        "    reader.extract(ExtractionRequest(owner='k', turns=turns, at=datetime.now(UTC)))\n"
        "    print('ready', flush=True)\n"
        "    sys.stdin.read()\n"
    )
    parent = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None and parent.stdout.readline().strip() == "ready"
        workers = children(parent.pid)
        assert workers, "the extraction process was not started"
        parent.send_signal(signal.SIGKILL)  # no close(), no atexit: the server just dies
        parent.wait()
        assert all(wait_gone(pid) for pid in workers)
    finally:
        if parent.poll() is None:
            parent.kill()
