"""Where a hybrid retrieval's time goes, stage by stage.

Why: `make bench` gives the whole retrieval's p50/p95; cutting it needs to know which
stage to cut. This wraps the retriever's stages with timers (the wrappers cost a few
microseconds each) and prints each stage's p50 and mean per query beside the total:
- dense: the query's embedding, the owner's vector index check and the matrix product;
- keyword_scores: the fusion's keyword scores (the in-memory postings once built);
- rows: the ranked rows, recent memories and standing instructions in one read;
- fused: the fusion and building the candidates (includes rows);
- floor: coverage of the query's words and the relevance floor;
- record: the hit counter.

Run: ``.venv/bin/python bench/retrieval_stages.py [--db PATH] [--queries N]``. Without
``--db`` it builds the `make bench` file (100,000 memories, 10,000 for the key "k1") in
a temporary directory; with ``--db`` a file built that way is only read. It asserts
nothing about time: the figures are for reading beside each other.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engram"), str(ROOT / "bench")]

from engine_bench import (  # noqa: E402
    Corpus,
    fill,
    open_engine,
    percentile,
    use_vectors,
    wait_for_keywords,
)

from engram.domain.models import RetrievalRequest, Strategy  # noqa: E402

STAGES = {  # label -> (attribute path from the retriever, method)
    "dense": ("vectors", "dense"),
    "keyword_scores": ("search", "keyword_scores"),
    "rows": ("search", "get_many_with_context"),
    "fused": ("", "_fused"),
    "floor": ("", "_floor"),
    "record": ("", "_record"),
}


def timed(
    times: dict[str, list[float]], label: str, method: Callable[..., Any]
) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            times[label].append((time.perf_counter() - started) * 1000)

    return wrapper


def run(path: Path, questions: list[str]) -> None:
    engine, _ = open_engine(path)
    use_vectors(engine, True)
    retriever = engine.retrieval
    times: dict[str, list[float]] = defaultdict(list)
    for label, (owner, name) in STAGES.items():
        target = getattr(retriever, owner) if owner else retriever
        setattr(target, name, timed(times, label, getattr(target, name)))
    for question in questions[:20]:  # warm the caches, start the keyword postings' build
        retriever.retrieve("k1", RetrievalRequest(query=question, strategy=Strategy.HYBRID))
    wait_for_keywords(engine, "k1")
    times.clear()
    total = []
    for question in tqdm(questions, desc="queries", unit="q", leave=False):
        started = time.perf_counter()
        retriever.retrieve("k1", RetrievalRequest(query=question, strategy=Strategy.HYBRID))
        total.append((time.perf_counter() - started) * 1000)
    engine.close()
    count = len(questions)
    print(f"\nhybrid retrieval, {count} queries, 10,000 memories of the key: ms")
    print(f"  {'total':16s} p50 {percentile(total, 50):6.2f}  p95 {percentile(total, 95):6.2f}")
    for label in STAGES:
        found = times[label]
        if found:
            mean = sum(found) / count
            print(f"  {label:16s} p50 {percentile(found, 50):6.2f}  per query {mean:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="a file built as make bench builds it")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    corpus = Corpus(random.Random(args.seed))
    questions = [corpus.question() for _ in range(args.queries)]
    if args.db:
        run(args.db, questions)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stages.db"
        engine, db = open_engine(path)
        fill(engine, 100_000, 10_000, corpus)
        engine.close()
        db.close()
        run(path, questions)


if __name__ == "__main__":
    main()
