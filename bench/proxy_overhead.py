"""Chat proxy overhead: the same stub upstream called directly and through Engram.

Engram runs as a real ``engram serve`` process (memory on, 1,000 memories for the
key, extraction in its background worker); the stub upstream and the client run
here. Direct and proxied requests alternate, so noise on this machine hits both
alike; the overhead is the difference of the two in the same run. Also prints the
cold import time of the chat proxy's Lambda handler module.

``--conversation`` turns ``storeConversation`` on: every exchange is also stored as
conversation memories by the extraction worker, so the key's memories grow while
the requests are timed.

Run: ``.venv/bin/python bench/proxy_overhead.py [--requests 500] [--conversation]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from shared.devtools.local_servers import free_port  # noqa: E402
from tests.support.upstream_stub import StubUpstream  # noqa: E402 - the tests' stub, on purpose

TOPICS = (
    "typescript postgres kubernetes deploy friday coffee climbing jazz berlin budget invoice "
    "release testing review staging monitoring alerts backup cache latency schema migration "
    "python rust editor vim helix garden cooking sushi travel japan sister birthday project"
).split()
ADMIN = "bench-admin-token"


def percentile(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def cold_import_seconds(runs: int = 5) -> float:
    code = (
        "import time, importlib.util, sys; sys.path[:0] = ['.', 'layers/engram'];"
        "t = time.perf_counter();"
        "s = importlib.util.spec_from_file_location('app', 'functions/chat_proxy/app.py');"
        "m = importlib.util.module_from_spec(s); s.loader.exec_module(m);"
        "print(time.perf_counter() - t)"
    )
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return min(times)


def start_engram(tmp: Path, upstream: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env |= {
        "ENGRAM_DB_URL": f"file:{tmp / 'bench.db'}",
        "ENGRAM_DATA_DIR": str(tmp),
        "ENGRAM_ADMIN_TOKEN": ADMIN,
        "ENGRAM_UPSTREAM_BASE_URL": upstream,
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "shared.devtools.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{base}/docs", timeout=1)
            return process, base
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("engram serve did not start")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux), every thread included."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def seed(client: httpx.Client, base: str, rng: random.Random, conversation: bool) -> str:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    key = client.post(f"{base}/api/keys", json={"name": "bench"}, headers=admin).json()
    settings = {"enabled": True, "storeConversation": conversation}
    client.put(f"{base}/api/settings/memory", json=settings, headers=admin).raise_for_status()
    lines = [
        json.dumps(
            {
                "apiKeyId": key["id"],
                "key": f"fact:{i}",
                "content": "User mentioned " + " ".join(rng.sample(TOPICS, 6)),
            }
        )
        for i in range(1000)
    ]
    response = client.post(
        f"{base}/api/memory/import",
        content="\n".join(lines),
        headers={**admin, "Content-Type": "application/x-ndjson"},
    )
    assert response.json()["created"] == 1000, response.text
    # The import asked the embedding worker for 1,000 vectors: let it finish first, so
    # the timed requests measure chat overhead, not a worker running beside them.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = client.get(f"{base}/api/memory/engine-status", headers=admin).json()
        if status["vectorStore"]["pendingReindex"] == 0:
            break
        time.sleep(0.1)
    return str(key["secret"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--conversation", action="store_true", help="storeConversation on")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    with StubUpstream(record=False) as stub, tempfile.TemporaryDirectory() as tmp_dir:
        engram, base = start_engram(Path(tmp_dir), stub.url)
        try:
            with httpx.Client(timeout=30) as client:
                secret = seed(client, base, rng, args.conversation)
                auth = {"Authorization": f"Bearer {secret}"}
                direct, proxied = [], []
                for i in tqdm(range(args.requests + 20), desc="requests", unit="pair"):
                    body = {
                        "model": "gpt-4o-mini",
                        "messages": [
                            {
                                "role": "user",
                                "content": "What do you remember about "
                                + " and ".join(rng.sample(TOPICS, 2))
                                + "?",
                            }
                        ],
                    }
                    t0 = time.perf_counter()
                    assert client.post(f"{stub.url}/chat/completions", json=body).status_code == 200
                    t1 = time.perf_counter()
                    r = client.post(f"{base}/v1/chat/completions", json=body, headers=auth)
                    t2 = time.perf_counter()
                    assert r.status_code == 200, r.text
                    assert r.headers["x-engram-memories"] != "0"
                    if i == 19:
                        cpu_before = cpu_seconds(engram.pid)
                    if i >= 20:  # the first requests warm connections and caches
                        direct.append((t1 - t0) * 1000)
                        proxied.append((t2 - t1) * 1000)
                # Engram's CPU per request is steadier than wall time on a busy machine
                # (its extraction worker's share included).
                cpu_ms = (cpu_seconds(engram.pid) - cpu_before) * 1000 / args.requests
        finally:
            engram.terminate()
            engram.wait(timeout=10)

    d50, d95 = percentile(direct, 50), percentile(direct, 95)
    p50, p95 = percentile(proxied, 50), percentile(proxied, 95)
    mode = ", conversation memory on" if args.conversation else ""
    print(f"\n{args.requests} requests each, memory on{mode}, 1,000 memories for the key")
    print(f"{'path':<24} {'p50 ms':>8} {'p95 ms':>8}")
    print(f"{'direct to upstream':<24} {d50:>8.2f} {d95:>8.2f}")
    print(f"{'through Engram':<24} {p50:>8.2f} {p95:>8.2f}")
    print(f"{'overhead':<24} {p50 - d50:>8.2f} {p95 - d95:>8.2f}")
    print(f"Engram's CPU per request: {cpu_ms:.2f} ms (server process, all threads)")
    print(
        f"\ncold import of functions/chat_proxy/app.py: {cold_import_seconds():.2f} s (best of 5)"
    )


if __name__ == "__main__":
    main()
