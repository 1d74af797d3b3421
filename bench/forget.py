"""What forgetting costs: a dry run, one session, and a whole key, among many memories.

Forgetting deletes rows with tombstones, rebuilds the contexts of the sessions touched,
merges the keyword index (so no deleted token lingers in an older segment) and
checkpoints the WAL. The merge is proportional to the whole index, which is why a
single DELETE /api/memory/{id} does not do it and a bulk forget does. Printed: the
time of each step of a forget for a database of N memories (half of them the key's).

Run: ``.venv/bin/python bench/forget.py [--memories 10000]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engram")]

from engram import Config, open_engine  # noqa: E402
from engram.adapters.libsql.fts import purge_keyword_index  # noqa: E402
from engram.domain.models import MemoryForget, MemoryImport  # noqa: E402

WORDS = "postgres react deploy budget coffee berlin kayak review sprint invoice".split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        engine = open_engine(Config(db_url=f"file:{folder}/forget.db"), jobs="manual")
        batch: list[MemoryImport] = []
        for n in tqdm(range(args.memories), desc="write", unit="mem"):
            owner = "key_bench" if n % 2 == 0 else f"key_other{n % 7}"
            text = " ".join(rng.choices(WORDS, k=8)) + f" note {n}"
            batch.append(MemoryImport(api_key_id=owner, content=text, session_id=f"s{n % 50}"))
            if len(batch) == 1000:
                engine.memories.upsert_many(batch)
                batch = []
        if batch:
            engine.memories.upsert_many(batch)
        db = engine.memories.store.db  # type: ignore[attr-defined]

        def timed(label: str, request: MemoryForget) -> None:
            started = time.perf_counter()
            outcome = engine.memories.forget(request)
            total = (time.perf_counter() - started) * 1000
            print(f"  {label:<28}{outcome.matched:>8,}{outcome.deleted:>9,}{total:>12.1f}")

        print(f"\n{args.memories:,} memories, {args.memories // 2:,} of the key, 50 sessions")
        print(f"  {'forget':<28}{'matched':>8}{'deleted':>9}{'total ms':>12}")
        timed("dry run, whole key", MemoryForget(api_key_id="key_bench", dry_run=True))
        timed("one session", MemoryForget(api_key_id="key_bench", session_id="s0"))
        started = time.perf_counter()
        purge_keyword_index(db)
        print(
            f"  {'(index merge alone)':<28}{'':>17}{(time.perf_counter() - started) * 1000:>12.1f}"
        )
        timed("the whole key", MemoryForget(api_key_id="key_bench"))
        engine.close()


if __name__ == "__main__":
    main()
