"""MCP tool latency: memory_search and memory_add at 1,000 memories, over stdio and HTTP.

The SDK's own client drives ``engram mcp`` as a subprocess (stdio) and ``POST /mcp`` of
a real ``engram serve`` process (stateless Streamable HTTP, one HTTP request per call).
Each transport gets its own database with 1,000 memories of one key, written through
the engine beforehand (their vectors computed). Timings are client-side, per call,
after a few warm-up calls; printed as p50/p95/mean in milliseconds.

Run: ``.venv/bin/python bench/mcp_latency.py [--calls 300] [--memories 1000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from mcp import Client  # noqa: E402
from tqdm import tqdm  # noqa: E402

from engram import Config, open_engine  # noqa: E402
from engram.domain.models import ApiKeyCreate, MemoryCreate  # noqa: E402
from tests.support.mcp import http_client, stdio_params  # noqa: E402 - the tests' clients
from tests.support.server import engram_server  # noqa: E402

TOPICS = (
    "typescript postgres kubernetes deploy friday coffee climbing jazz berlin budget invoice "
    "release testing review staging monitoring alerts backup cache latency schema migration "
    "python rust editor vim helix garden cooking sushi travel japan sister birthday project"
).split()


def seed(url: str, memories: int, rng: random.Random) -> str:
    engine = open_engine(Config(db_url=url), jobs="inline")
    try:
        key = engine.keys.create(ApiKeyCreate(name="bench"))
        items = [
            MemoryCreate(
                api_key_id=key.id,
                content=f"Memory {i}: the user likes {' and '.join(rng.sample(TOPICS, 3))}",
            )
            for i in range(memories)
        ]
        for start in tqdm(range(0, memories, 200), desc="seeding", unit="batch", leave=False):
            engine.memories.upsert_many(items[start : start + 200])
        return key.secret
    finally:
        engine.close()


async def measure(client: Client, calls: int, rng: random.Random, label: str) -> dict[str, list]:
    timings: dict[str, list[float]] = {"memory_search": [], "memory_add": []}
    for _ in range(5):  # warm-up
        await client.call_tool("memory_search", {"query": "warm up"})
    for i in tqdm(range(calls), desc=label, unit="call"):
        query = " ".join(rng.sample(TOPICS, 2))
        started = time.perf_counter()
        result = await client.call_tool("memory_search", {"query": f"what about {query}?"})
        timings["memory_search"].append((time.perf_counter() - started) * 1000)
        assert not result.is_error, result.content
        started = time.perf_counter()
        result = await client.call_tool(
            "memory_add", {"content": f"Bench note {label} {i}: the user mentioned {query}"}
        )
        timings["memory_add"].append((time.perf_counter() - started) * 1000)
        assert not result.is_error, result.content
    return timings


def report(transport: str, timings: dict[str, list[float]]) -> None:
    for tool, values in timings.items():
        ordered = sorted(values)
        p50 = statistics.median(ordered)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        print(
            f"{transport:<6} {tool:<14} p50 {p50:7.2f} ms  p95 {p95:7.2f} ms"
            f"  mean {statistics.fmean(ordered):7.2f} ms  (n={len(ordered)})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls of each tool")
    parser.add_argument("--memories", type=int, default=1000)
    args = parser.parse_args()
    rng = random.Random(14)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        url = f"file:{base / 'stdio.db'}"
        secret = seed(url, args.memories, rng)

        async def over_stdio() -> dict[str, list]:
            params = stdio_params(url, secret, base / "stdio-data")
            async with Client(params, mode="legacy") as client:
                return await measure(client, args.calls, rng, "stdio")

        results["stdio"] = asyncio.run(over_stdio())

        (base / "http").mkdir()
        http_url = f"file:{base / 'http' / 'engram.db'}"
        http_secret = seed(http_url, args.memories, rng)
        with engram_server(base / "http") as server:

            async def over_http() -> dict[str, list]:
                async with http_client(f"{server.base}/mcp", http_secret) as client:
                    return await measure(client, args.calls, rng, "http")

            results["http"] = asyncio.run(over_http())
    print(f"\nMCP tool latency at {args.memories} memories, {args.calls} calls each (client-side)")
    for transport, timings in results.items():
        report(transport, timings)


if __name__ == "__main__":
    main()
