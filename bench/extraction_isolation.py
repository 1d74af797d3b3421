"""Does one tenant's largest message slow another tenant's chat? Measured on `engram serve`.

A real ``engram serve`` (its own database, a stub upstream on 127.0.0.1, memory on).
Tenant B chats: a few short messages, each timed from request to answer. Each round,
first with the server idle (after a pause), then right after tenant A's maximal message
was answered (a body of ``--message-kib`` of ordinary chat text; extraction reads its
newest 64 KiB, the most it ever reads): A's request is done, its extraction job is
under way, and B's requests meet the extraction alone. Idle and loaded alternate round
by round so that a noisy host hits both alike.

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


def chat_text(kib: int) -> str:
    """Ordinary chat (LoCoMo's turns when present, else plain statements), ``kib`` KiB."""
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
    text = ""
    while len(text) < kib * 1024:
        text += "\n".join(turns) + "\n"
    return text[: kib * 1024]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--requests", type=int, default=8, help="B's chats per round")
    parser.add_argument("--settle-s", type=float, default=2.0, help="pause before each idle round")
    parser.add_argument("--message-kib", type=int, default=512)
    parser.add_argument("--max-ratio", type=float, default=2.0)
    args = parser.parse_args()

    big = chat_text(args.message_kib)
    with tempfile.TemporaryDirectory() as tmp, StubUpstream("Sure.") as stub:
        stub.record = False
        environment = {
            "ENGRAM_UPSTREAM_BASE_URL": stub.url,
            "ENGRAM_UPSTREAM_API_KEY": "stub",
        }
        with engram_server(Path(tmp), **environment) as server:
            server.settings(enabled=True)
            key_a, key_b = server.api_key("tenant-a"), server.api_key("tenant-b")
            client = httpx.Client(base_url=server.base, timeout=60)

            def tenant_b(n: int) -> list[float]:
                took = []
                for i in range(n):
                    started = time.perf_counter()
                    client.post(
                        "/v1/chat/completions",
                        json={
                            "model": "m",
                            "messages": [{"role": "user", "content": f"What's new today? {i}"}],
                        },
                        headers={"Authorization": f"Bearer {key_b}"},
                    ).raise_for_status()
                    took.append((time.perf_counter() - started) * 1000)
                return took

            def tenant_a() -> None:
                # A's request is answered before its extraction job runs: what B meets
                # next is the extraction alone, not A's request.
                client.post(
                    "/v1/chat/completions",
                    json={"model": "m", "messages": [{"role": "user", "content": big}]},
                    headers={"Authorization": f"Bearer {key_a}"},
                ).raise_for_status()

            tenant_b(20)  # warm: the first requests load the embedder and the caches
            idle: list[float] = []
            loaded: list[float] = []
            chats_a = 0
            for round_ in range(args.rounds):
                time.sleep(args.settle_s)
                idle += tenant_b(args.requests)
                tenant_a()
                chats_a += 1
                loaded += tenant_b(args.requests)  # while A's message is being read
                if (round_ + 1) % 10 == 0:
                    print(f"round {round_ + 1}/{args.rounds}", file=sys.stderr)
            client.close()
    p50_i, p99_i = statistics.median(idle), percentile(idle, 0.99)
    p50_l, p99_l = statistics.median(loaded), percentile(loaded, 0.99)
    ratio = p99_l / p99_i
    print(f"tenant B idle:   p50 {p50_i:6.1f} ms  p99 {p99_i:6.1f} ms  ({len(idle)} chats)")
    print(f"tenant B loaded: p50 {p50_l:6.1f} ms  p99 {p99_l:6.1f} ms  ({len(loaded)} chats)")
    print(f"tenant A: {chats_a} maximal messages ({args.message_kib} KiB) sent and extracted")
    print(f"p99 loaded / idle: {ratio:.2f} (limit {args.max_ratio})")
    sys.exit(1 if ratio > args.max_ratio else 0)


if __name__ == "__main__":
    main()
