"""Soak: mixed traffic from several processes against a real ``engram serve`` on loopback.

Each client process loops over the operations a deployment sees (chat through the
proxy to a stub upstream, creates, updates, deletes, lists, previews, imports,
exports, forgetting a key's conversation) for the whole run; the server's resident
memory is sampled meanwhile. The texts come from a small pool and each client forgets
its stored chat turns now and then (every chat stores its turn: conversation memory
grows with the conversation, by design), so the data stays bounded: memory that keeps
growing after the first minute is a leak, not data.
Prints, per minute: requests, errors, p50/p95 latency and RSS; then the totals.
Exits 1 when any request failed (5xx, a transport error, or an unexpected status) or
when RSS grew by more than ``--max-growth-mb`` between the first and the last minute;
``tests/reliability/test_soak.py`` runs ``soak()`` and asserts the same in pytest.

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
from dataclasses import dataclass
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
                [
                    "chat",
                    "create",
                    "update",
                    "delete",
                    "list",
                    "preview",
                    "import",
                    "export",
                    "forget",
                ],
                [30, 20, 10, 8, 12, 12, 4, 4, 1],
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
            elif op == "forget":  # the stored chat turns: what would otherwise keep growing
                call(op, "DELETE", "/api/memory", params={"apiKeyId": owner, "type": "episodic"})
    out.put(records)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Soak:
    """What one soak saw: every request, the server's RSS over time, its error log."""

    clients: int
    seconds: int
    start: float
    records: list[tuple[float, str, int, float]]  # started, operation, status, ms
    rss: list[tuple[float, float]]  # at, MB
    error_log_lines: int
    memories_at_end: int

    def failures(self) -> list[tuple[str, int]]:
        """(operation, status) of every request that failed."""
        return [(op, status) for _, op, status, _ in self.records if failed(op, status)]

    def rss_first_minute_mb(self) -> float:
        return statistics.mean(mb for at, mb in self.rss if at - self.start < 60)

    def rss_last_minute_mb(self) -> float:
        end = self.rss[-1][0]
        return statistics.mean(mb for at, mb in self.rss if at >= end - 60)

    def growth_mb(self) -> float:
        return self.rss_last_minute_mb() - self.rss_first_minute_mb()


def failed(op: str, status: int) -> bool:
    return status == 0 or status >= 500 or (status >= 400 and status not in EXPECTED.get(op, set()))


def soak(seconds: int, clients: int, progress: bool = True) -> Soak:
    """Run ``clients`` client processes against a fresh ``engram serve`` for ``seconds``."""
    with (
        StubUpstream(record=False) as stub,
        tempfile.TemporaryDirectory() as tmp,
        engram_server(
            Path(tmp), ENGRAM_UPSTREAM_BASE_URL=stub.url, ENGRAM_UPSTREAM_API_KEY="sk"
        ) as server,
    ):
        server.settings(enabled=True)
        owners = []
        for i in range(clients):
            response = httpx.post(
                f"{server.base}/api/keys", json={"name": f"soak{i}"}, headers=server.admin
            )
            owners.append((response.json()["secret"], response.json()["id"]))
        start = time.time()
        until = start + seconds
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
            if progress:
                print(
                    f"\r{time.time() - start:6.0f} s  RSS {rss[-1][1]:7.1f} MB",
                    end="",
                    flush=True,
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
    if progress:
        print()
    return Soak(clients, seconds, start, records, rss, errors_logged, stored)


def report(run: Soak) -> dict:
    """Prints the per-minute table; returns the summary."""
    by_minute: dict[int, list[tuple[str, int, float]]] = defaultdict(list)
    for started, op, status, ms in run.records:
        by_minute[int((started - run.start) // 60)].append((op, status, ms))
    print(f"{run.clients} client processes, {run.seconds} s, {len(run.records)} requests")
    print(f"{'minute':>6} {'requests':>9} {'errors':>7} {'p50 ms':>8} {'p95 ms':>8} {'RSS MB':>8}")
    minute_rss: dict[int, list[float]] = defaultdict(list)
    for at, mb in run.rss:
        minute_rss[int((at - run.start) // 60)].append(mb)
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
    statuses: dict[str, int] = defaultdict(int)
    for _, _, status, _ in run.records:
        statuses[str(status)] += 1
    summary = {
        "requests": len(run.records),
        "memoriesAtEnd": run.memories_at_end,
        "errors": len(run.failures()),
        "errorLogLines": run.error_log_lines,
        "rssFirstMinuteMb": round(run.rss_first_minute_mb(), 1),
        "rssLastMinuteMb": round(run.rss_last_minute_mb(), 1),
        "rssMaxMb": round(max(mb for _, mb in run.rss), 1),
        "statuses": dict(sorted(statuses.items())),
    }
    print(json.dumps(summary))
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--max-growth-mb", type=float, default=60.0)
    args = parser.parse_args()
    run = soak(args.seconds, args.clients)
    report(run)
    grew = run.growth_mb() > args.max_growth_mb
    return 1 if run.failures() or run.error_log_lines or grew else 0


if __name__ == "__main__":
    raise SystemExit(main())
