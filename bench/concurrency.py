"""Write contention: several processes, each with its own engine on one libSQL file (as
Lambda instances share one database), writing at once; then every write is accounted for.

Each process upserts its own keys, restates keys shared by all processes (the upsert
race), updates and deletes some of its own, and imports small batches. Afterwards the
file must hold exactly one row per (owner, key) written and not deleted, with the last
content each process wrote to its own keys; "database is locked" and any other error
are counted. Prints the table; exits 1 on any loss, duplicate or error.

Run: ``.venv/bin/python bench/concurrency.py [--processes 4] [--writes 2000]``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engram")]

from engram import Config, EngramError, open_engine  # noqa: E402
from engram.domain.models import MemoryCreate, MemoryImport, MemoryQuery, MemoryUpdate  # noqa: E402


def writer(url: str, index: int, writes: int, out: multiprocessing.Queue) -> None:
    engine = open_engine(Config(db_url=url), jobs="manual")
    rng = random.Random(index)
    owner = f"key_p{index}"
    expected: dict[str, str] = {}
    ids: dict[str, str] = {}
    errors: dict[str, int] = {}
    started = time.perf_counter()
    for n in range(writes):
        op = rng.choices(["create", "shared", "update", "delete", "import"], [50, 15, 20, 10, 5])[0]
        try:
            if op == "create" or (op in ("update", "delete") and not ids):
                key = f"own:{n}"
                memory = engine.memories.create(
                    MemoryCreate(api_key_id=owner, key=key, content=f"fact {n} of {index}")
                )
                expected[key], ids[key] = memory.content, memory.id
            elif op == "shared":
                # Every process restates these keys of one shared owner: the upsert race.
                engine.memories.create(
                    MemoryCreate(api_key_id="key_shared", key=f"s:{n % 20}", content=f"v{n}")
                )
            elif op == "update":
                key = rng.choice(list(ids))
                content = f"updated {n} by {index}"
                engine.memories.update(ids[key], MemoryUpdate(content=content), owner)
                expected[key] = content
            elif op == "delete":
                key = rng.choice(list(ids))
                engine.memories.delete(ids.pop(key), owner)
                expected.pop(key)
            else:
                batch = [
                    MemoryImport(api_key_id=owner, key=f"batch:{n}:{i}", content=f"b{n}.{i}")
                    for i in range(5)
                ]
                for outcome in engine.memories.upsert_many(batch):
                    expected[outcome.memory.key] = outcome.memory.content
                    ids[outcome.memory.key] = outcome.memory.id
        except EngramError as exc:
            kind = "database is locked" if "locked" in exc.message else type(exc).__name__
            errors[kind] = errors.get(kind, 0) + 1
    elapsed = time.perf_counter() - started
    engine.close()
    out.put({"owner": owner, "expected": expected, "errors": errors, "seconds": elapsed})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--writes", type=int, default=2000, help="operations per process")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"file:{tmp}/shared.db"
        open_engine(Config(db_url=url), jobs="manual").close()  # schema first
        queue: multiprocessing.Queue = multiprocessing.Queue()
        procs = [
            multiprocessing.Process(target=writer, args=(url, i, args.writes, queue))
            for i in range(args.processes)
        ]
        started = time.perf_counter()
        for proc in procs:
            proc.start()
        results = [queue.get(timeout=1800) for _ in procs]
        for proc in procs:
            proc.join()
        wall = time.perf_counter() - started
        engine = open_engine(Config(db_url=url), jobs="manual")
        lost = duplicated = wrong = 0
        for result in results:
            stored = {}
            for memory in engine.memories.export(result["owner"]):
                duplicated += memory.key in stored
                stored[memory.key] = memory.content
            lost += len(set(result["expected"]) - set(stored))
            wrong += sum(
                1
                for key, content in result["expected"].items()
                if stored.get(key, content) != content
            )
            lost += len(set(stored) - set(result["expected"]))  # deleted rows that came back
        shared = engine.memories.list_page(MemoryQuery(api_key_id="key_shared", limit=500))
        duplicated += shared.total - len({m.key for m in shared.data})
        engine.close()
    errors: dict[str, int] = {}
    for result in results:
        for kind, count in result["errors"].items():
            errors[kind] = errors.get(kind, 0) + count
    total = args.processes * args.writes
    print(f"{args.processes} processes x {args.writes} operations on one libSQL file")
    print(f"  operations       {total:>8,}   in {wall:.1f} s ({total / wall:,.0f} /s)")
    print(f"  lost             {lost:>8}")
    print(f"  duplicated       {duplicated:>8}")
    print(f"  wrong content    {wrong:>8}")
    print(f"  errors           {json.dumps(errors)}")
    return 1 if lost or duplicated or wrong or errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
