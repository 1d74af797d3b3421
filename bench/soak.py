"""Soak: mixed traffic from several processes against a real ``engram serve`` on loopback.

Each client process loops over the operations a deployment sees (chat through the
proxy to a stub upstream, creates, updates, deletes, lists, previews, imports,
exports) for the whole run; the server's resident memory is sampled meanwhile. The
texts come from a small pool, so the data reaches a steady size within the first
minute: memory that keeps growing after that is a leak, not data.
Prints, per minute: requests, errors, p50/p95 latency and RSS; then the totals.
Exits 1 when any request failed (5xx, a transport error, or an unexpected status) or
when RSS grew by more than ``--max-growth-mb`` between the first and the last minute.

Run: ``.venv/bin/python bench/soak.py [--seconds 300] [--clients 4]``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.support.server import engram_server  # noqa: E402 - the tests' launcher
from tests.support.upstream_stub import StubUpstream  # noqa: E402

WORDS = "tea coffee jazz rust postgres berlin kayak budget deadline review cat garden".split()
# Statuses each operation may answer in normal use (a missing id after a peer's delete).
EXPECTED = {"update": {200, 404}, "delete": {204, 404}}


def client(base: str, token: str, secret: str, owner: str, until: float, seed: int, out) -> None:
    rng = random.Random(seed)
    admin = {"Authorization": f"Bearer {token}"}
    mine: list[str] = []
    records = []
    with httpx.Client(base_url=base, timeout=30, headers=admin) as http:

        def call(op: str, method: str, url: str, **kw):
            started = time.time()
            try:
                response = http.request(method, url, **kw)
                status = response.status_code
            except httpx.HTTPError:
                response, status = None, 0
            records.append((started, op, status, (time.time() - started) * 1000))
            return response

        while time.time() < until:
            text = f"{rng.choice(WORDS)} note {rng.randrange(40)}"  # a bounded pool
            op = rng.choices(
                ["chat", "create", "update", "delete", "list", "preview", "import", "export"],
                [30, 20, 10, 8, 12, 12, 4, 4],
            )[0]
            if op == "chat":
                call(
                    op,
                    "POST",
                    "/v1/chat/completions",
                    json={
                        "model": "m",
                        "messages": [{"role": "user", "content": f"I like {text}"}],
                    },
                    headers={"Authorization": f"Bearer {secret}"},
                )
            elif op == "create":
                key = f"note:{rng.randrange(40)}"  # restating a key updates it: bounded data
                body = {"apiKeyId": owner, "key": key, "content": text}
                r = call(op, "POST", "/api/memory", json=body)
                if r is not None and r.status_code == 201:
                    mine.append(r.json()["id"])
            elif op == "update" and mine:
                call(op, "PUT", f"/api/memory/{rng.choice(mine)}", json={"content": text})
            elif op == "delete" and mine:
                call(op, "DELETE", f"/api/memory/{mine.pop(rng.randrange(len(mine)))}")
            elif op == "list":
                call(op, "GET", "/api/memory", params={"apiKeyId": owner, "limit": 50})
            elif op == "preview":
                call(
                    op,
                    "POST",
                    "/api/memory/retrieve-preview",
                    json={"apiKeyId": owner, "query": text},
                )
            elif op == "import":
                items = [
                    {"apiKeyId": owner, "key": f"batch:{rng.randrange(50)}", "content": text}
                    for _ in range(5)
                ]
                call(op, "POST", "/api/memory/import", json=items)
            elif op == "export":
                call(op, "GET", "/api/memory/export", params={"apiKeyId": owner})
    out.put(records)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--max-growth-mb", type=float, default=60.0)
    args = parser.parse_args()

    with StubUpstream() as stub, tempfile.TemporaryDirectory() as tmp:
        stub.record = False
        with engram_server(
            Path(tmp), ENGRAM_UPSTREAM_BASE_URL=stub.url, ENGRAM_UPSTREAM_API_KEY="sk"
        ) as server:
            server.settings(enabled=True)
            owners = []
            for i in range(args.clients):
                response = httpx.post(
                    f"{server.base}/api/keys", json={"name": f"soak{i}"}, headers=server.admin
                )
                owners.append((response.json()["secret"], response.json()["id"]))
            start = time.time()
            until = start + args.seconds
            queue: multiprocessing.Queue = multiprocessing.Queue()
            workers = [
                multiprocessing.Process(
                    target=client,
                    args=(server.base, server.token, secret, owner, until, i, queue),
                )
                for i, (secret, owner) in enumerate(owners)
            ]
            for worker in workers:
                worker.start()
            rss: list[tuple[float, float]] = []
            while time.time() < until:
                rss.append((time.time(), rss_mb(server.process.pid)))
                print(
                    f"\r{time.time() - start:6.0f} s  RSS {rss[-1][1]:7.1f} MB", end="", flush=True
                )
                time.sleep(5)
            records = [r for _ in workers for r in queue.get(timeout=120)]
            for worker in workers:
                worker.join(timeout=30)
            rss.append((time.time(), rss_mb(server.process.pid)))
            errors_logged = server.log.read_text().count('"level":"ERROR"')
            stored = httpx.get(
                f"{server.base}/api/memory", params={"limit": 1}, headers=server.admin
            ).json()["total"]
    print()
    by_minute: dict[int, list[tuple[str, int, float]]] = defaultdict(list)
    for started, op, status, ms in records:
        by_minute[int((started - start) // 60)].append((op, status, ms))

    def failed(op: str, status: int) -> bool:
        return (
            status == 0
            or status >= 500
            or (status >= 400 and status not in EXPECTED.get(op, set()))
        )

    print(f"{args.clients} client processes, {args.seconds} s, {len(records)} requests")
    print(f"{'minute':>6} {'requests':>9} {'errors':>7} {'p50 ms':>8} {'p95 ms':>8} {'RSS MB':>8}")
    minute_rss: dict[int, list[float]] = defaultdict(list)
    for at, mb in rss:
        minute_rss[int((at - start) // 60)].append(mb)
    for minute in sorted(by_minute):
        rows = by_minute[minute]
        latencies = sorted(ms for _, _, ms in rows)
        p95 = statistics.quantiles(latencies, n=20)[-1] if len(latencies) > 1 else latencies[0]
        errors = sum(failed(op, status) for op, status, _ in rows)
        mb = max(minute_rss.get(minute, [0.0]))
        print(
            f"{minute:>6} {len(rows):>9} {errors:>7} {statistics.median(latencies):>8.1f}"
            f" {p95:>8.1f} {mb:>8.1f}"
        )
    total_errors = sum(failed(op, status) for _, op, status, _ in records)
    first = statistics.mean(mb for at, mb in rss if at - start < 60)
    last = statistics.mean(mb for at, mb in rss if at - start >= (rss[-1][0] - start) - 60)
    summary = {
        "requests": len(records),
        "memoriesAtEnd": stored,
        "errors": total_errors,
        "errorLogLines": errors_logged,
        "rssFirstMinuteMb": round(first, 1),
        "rssLastMinuteMb": round(last, 1),
        "rssMaxMb": round(max(mb for _, mb in rss), 1),
        "statuses": dict(sorted({str(s): 0 for _, _, s, _ in records}.items())),
    }
    for _, _, status, _ in records:
        summary["statuses"][str(status)] += 1
    print(json.dumps(summary))
    grew = last - first > args.max_growth_mb
    return 1 if total_errors or errors_logged or grew else 0


if __name__ == "__main__":
    raise SystemExit(main())
