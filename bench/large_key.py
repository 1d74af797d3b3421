"""One API key of 50,000 memories against a stock sqld (its 10 MB response limit):
every strategy's cold first query and warm median, with peak memory, for the key held
in memory (within the default ``ENGRAM_VECTOR_KEY_MAX_MB``) and past that bound (a
lower one: the key is then scored by SQL's ``vector_distance_cos``).

Each cold query runs in a fresh process (spawned: nothing imported or cached), which
opens the engine, then times its first preview and ``--requests`` more. Peak memory
is the process's peak RSS (``ru_maxrss``) and its growth over the opened engine. A
planted fact ("I play the cello") must be the first result of a question about it,
and no answer may be a fallback: a silently lost tier fails the run.

Run: ``.venv/bin/python bench/large_key.py [--memories 50000] [--requests 10]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from engine_bench import Corpus  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from engram import Config, MemorySettingsUpdate, open_engine  # noqa: E402
from engram.adapters.sealing import new_key  # noqa: E402
from engram.domain.models import MemoryCreate, MemoryImport, RetrievalRequest, Strategy  # noqa: E402
from shared.devtools.sqld import SqldServer  # noqa: E402

OWNER = "big"
PLANTED = "I play the cello in a string quartet"
QUESTION = "which instrument do I play"
STRATEGIES = tuple(strategy.value for strategy in Strategy)


def fill(config: Config, memories: int) -> None:
    engine = open_engine(config, jobs="manual")
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    corpus = Corpus(random.Random(7))
    batch = 1000
    with tqdm(total=memories, desc="import", unit="mem") as bar:
        for start in range(0, memories - 1, batch):
            count = min(batch, memories - 1 - start)
            engine.memories.upsert_many(
                [
                    MemoryImport(api_key_id=OWNER, key=f"m{start + i}", content=corpus.memory())
                    for i in range(count)
                ]
            )
            bar.update(count)
        engine.memories.create(MemoryCreate(api_key_id=OWNER, key="cello", content=PLANTED))
        bar.update(1)
    with tqdm(total=memories, desc="embed", unit="mem") as bar:
        while True:
            result = engine.vectors.reindex(max_seconds=10)
            bar.update(result.processed)
            if not result.pending:
                break
    engine.close()


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cold_process(
    url: str, key: str, max_mb: float, strategy: str, requests: int, quantization: str
) -> dict[str, Any]:
    """Runs in a fresh process: open, first preview, then the warm ones."""
    config = Config(
        db_url=url,
        secrets_key=SecretStr(key),
        vector_key_max_mb=max_mb,
        vec_quantization=quantization,
    )
    engine = open_engine(config, jobs="manual")
    opened = _rss_mb()
    corpus = Corpus(random.Random(11))
    start = time.perf_counter()
    first = engine.retrieval.preview(OWNER, RetrievalRequest(query=QUESTION, strategy=strategy))
    cold_ms = (time.perf_counter() - start) * 1000
    warm, fallbacks = [], int(first.resolution.fallback)
    for _ in range(requests):
        request = RetrievalRequest(query=corpus.question(), strategy=strategy)
        start = time.perf_counter()
        found = engine.retrieval.preview(OWNER, request)
        warm.append((time.perf_counter() - start) * 1000)
        fallbacks += int(found.resolution.fallback)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    engine.close()
    return {
        "cold_ms": cold_ms,
        "warm_ms": statistics.median(warm) if warm else 0.0,
        "peak_mb": peak,
        "growth_mb": peak - opened,
        "planted_first": bool(first.results) and first.results[0].content == PLANTED,
        "fallbacks": fallbacks,
        "reason": first.resolution.reason,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=50_000)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument(
        "--bound-mb",
        type=float,
        default=20.0,
        help="the lower bound per key (MiB of stored vectors), which this key exceeds",
    )
    parser.add_argument(
        "--int8",
        action="store_true",
        help="store vectors as int8 (MEMORY_VEC_QUANTIZATION): a quarter of the bytes to load",
    )
    args = parser.parse_args()
    quantization = "int8" if args.int8 else "none"
    key = new_key()
    spawn = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp, SqldServer(Path(tmp)) as server:
        fill(
            Config(db_url=server.url, secrets_key=SecretStr(key), vec_quantization=quantization),
            args.memories,
        )
        print(
            f"\n{args.memories:,} memories in one key, stock sqld; static embedder (256-d),"
            f" vectors stored as {'int8' if args.int8 else 'float32'}"
        )
        print(
            f"{'vectors':<22}{'strategy':<10}{'cold ms':>9}{'warm ms':>9}"
            f"{'peak MB':>9}{'growth':>8}  planted first, fallbacks"
        )
        failed = False
        held = Config().vector_key_max_mb
        modes = (("in memory", held), (f"SQL (bound {args.bound_mb:g} MiB)", args.bound_mb))
        for label, max_mb in modes:
            for strategy in STRATEGIES:
                with spawn.Pool(1) as pool:
                    got = pool.apply(
                        cold_process,
                        (server.url, key, max_mb, strategy, args.requests, quantization),
                    )
                failed |= not got["planted_first"] or got["fallbacks"] > 0
                print(
                    f"{label:<22}{strategy:<10}{got['cold_ms']:>9.0f}{got['warm_ms']:>9.1f}"
                    f"{got['peak_mb']:>9.0f}{got['growth_mb']:>8.0f}  "
                    f"{got['planted_first']}, {got['fallbacks']}"
                    + (f" ({got['reason']})" if got["fallbacks"] else "")
                )
        if failed:
            raise SystemExit("a planted fact was missed or an answer fell back")


if __name__ == "__main__":
    main()
