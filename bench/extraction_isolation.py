"""Does one tenant's largest message slow another tenant's chat? Measured on `engram serve`.

A real ``engram serve`` (its own database, a stub upstream on 127.0.0.1, memory on).
Tenant B chats: short messages one after another, each timed from request to answer.
Each round, first with the server idle (after a pause), then from the moment tenant A's
maximal message was answered until A's job is done, its memories written and embedded.
A's message is a body of ``--message-kib`` of ordinary chat text, a different one each
round so that nothing is read from a cache (extraction reads its newest 64 KiB, the
most it ever reads). B's loaded requests meet the whole job and nothing else: the
redaction before queueing, the reading, the writes and the embeddings. Idle and loaded
alternate round by round so that a noisy host hits both alike, with as many chats.

Prints B's p50 and p99 in each state, their ratio, and how many of A's extractions ran;
exits 1 when loaded p99 exceeds ``--max-ratio`` (2) times idle p99.

Run: ``.venv/bin/python bench/extraction_isolation.py``
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from tests.support.server import engram_server  # noqa: E402
from tests.support.upstream_stub import StubUpstream  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "bench" / "locomo" / "locomo-dev.json"


def chat_text(kib: int, start: int = 0) -> str:
    """Ordinary chat (LoCoMo's turns when present, else plain statements), ``kib`` KiB,
    from the ``start``-th turn on."""
    if LOCOMO.exists():
        turns = [
            t["text"]
            for item in json.loads(LOCOMO.read_text())
            for key, session in item["conversation"].items()
            if re.fullmatch(r"session_\d+", key)
            for t in session
        ]
    else:
        turns = [f"I went hiking with my sister on day {i} and I prefer tea." for i in range(999)]
    start %= len(turns)
    turns = turns[start:] + turns[:start]
    text = ""
    while len(text) < kib * 1024:
        text += "\n".join(turns) + "\n"
    return text[: kib * 1024]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def pending(status: dict) -> int:
    return int(status["vectorStore"]["pendingReindex"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--timeout-s", type=float, default=30.0, help="longest wait for A's job")
    parser.add_argument("--settle-s", type=float, default=2.0, help="pause before each idle round")
    parser.add_argument("--message-kib", type=int, default=512)
    parser.add_argument("--max-ratio", type=float, default=2.0)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, StubUpstream("Sure.", record=False) as stub:
        environment = {
            "ENGRAM_UPSTREAM_BASE_URL": stub.url,
            "ENGRAM_UPSTREAM_API_KEY": "stub",
        }
        with engram_server(Path(tmp), **environment) as server:
            server.settings(enabled=True)
            key_b = server.api_key("tenant-b")
            client = httpx.Client(base_url=server.base, timeout=60)

            def chat_b(i: int) -> float:
                started = time.perf_counter()
                client.post(
                    "/v1/chat/completions",
                    json={
                        "model": "m",
                        "messages": [{"role": "user", "content": f"What's new today? {i}"}],
                    },
                    headers={"Authorization": f"Bearer {key_b}"},
                ).raise_for_status()
                return (time.perf_counter() - started) * 1000

            def stored() -> tuple[int, int]:
                status = client.get("/api/memory/engine-status", headers=server.admin).json()
                return status["vectorStore"]["totalMemories"], pending(status)

            def tenant_a(key_a: str, big: str) -> None:
                # A's request is answered before its extraction job runs: what B meets
                # next is the job alone, not A's request.
                client.post(
                    "/v1/chat/completions",
                    json={"model": "m", "messages": [{"role": "user", "content": big}]},
                    headers={"Authorization": f"Bearer {key_a}"},
                ).raise_for_status()

            for i in range(100):  # warm: the first requests load the embedder and caches
                chat_b(i)
            idle: list[float] = []
            loaded: list[float] = []
            learnt = 0
            during = 100  # B's chats during a job, as last measured
            for round_ in range(args.rounds):
                time.sleep(args.settle_s)
                idle += [chat_b(i) for i in range(during)]
                before, _ = stored()
                # A new tenant A each round: everything its job learns is new, so the job
                # is done when its memories are stored and embedded.
                tenant_a(
                    server.api_key(f"tenant-a-{round_}"), chat_text(args.message_kib, 997 * round_)
                )
                # B chats until A's job is done: memories written and embedded. The
                # status is asked between B's chats, untimed.
                took: list[float] = []
                deadline = time.perf_counter() + args.timeout_s
                while time.perf_counter() < deadline:
                    took += [chat_b(i) for i in range(10)]
                    total, waiting = stored()
                    if total > before and not waiting:
                        learnt += 1
                        break
                loaded += took
                during = len(took)
                if (round_ + 1) % 10 == 0:
                    print(f"round {round_ + 1}/{args.rounds}", file=sys.stderr)
            client.close()
    p50_i, p99_i = statistics.median(idle), percentile(idle, 0.99)
    p50_l, p99_l = statistics.median(loaded), percentile(loaded, 0.99)
    ratio = p99_l / p99_i
    print(f"tenant B idle:   p50 {p50_i:6.1f} ms  p99 {p99_i:6.1f} ms  ({len(idle)} chats)")
    print(f"tenant B loaded: p50 {p50_l:6.1f} ms  p99 {p99_l:6.1f} ms  ({len(loaded)} chats)")
    print(
        f"tenant A: {args.rounds} maximal messages ({args.message_kib} KiB) sent,"
        f" {learnt} read, written and embedded while B chatted"
    )
    print(f"p99 loaded / idle: {ratio:.2f} (limit {args.max_ratio})")
    sys.exit(1 if ratio > args.max_ratio else 0)


if __name__ == "__main__":
    main()
