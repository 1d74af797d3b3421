"""Relevance floor on LoCoMo: what related and unrelated questions inject.

Every question of each conversation is asked twice through the chat path's retrieval
(default settings: static embedder, hybrid, the key's token budget): against its own
conversation's memories (related: its evidence should be found) and against the next
conversation's (unrelated: nothing should go in). Printed: recall@10 of the related
questions, and the memories and tokens injected per request for both, with the floor
off and with the engine's floor (engram/app/retrieval.py: the entity gate, and a cosine or
keyword-coverage floor per memory for questions naming nothing).

``--dump FILE`` writes the unfloored rankings (cosine, BM25, keyword coverage per
result), the data the floor's constants were chosen from.

Run: ``.venv/bin/python bench/relevance.py [--data PATH] [--dump FILE]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engram"), str(ROOT / "bench")]

from locomo import DEFAULT_DATA, EMBEDDERS, InProcess, load, memories  # noqa: E402

from engram.domain.models import RetrievalRequest  # noqa: E402


def ask(target: InProcess, owner: str, question: str, floor: float | None) -> list[dict[str, Any]]:
    request = RetrievalRequest(query=question, relevance_floor=floor)
    result = target.engine.retrieval.preview(owner, request)
    return [
        {
            "dia": r.metadata.get("diaId"),
            "vec": r.vec_score,
            "fts": r.fts_score,
            "cover": r.keyword_coverage,
            "tokens": r.tokens,
        }
        for r in result.results
    ]


def figures(target: InProcess, conversations: list[dict[str, Any]], floor: float | None) -> dict:
    recall, related_n, related_t, unrelated_n, unrelated_t = [], [], [], [], []
    rankings: dict[str, list[Any]] = {"related": [], "unrelated": []}
    pairs = [(c, q) for c in conversations for q in c["questions"]]
    label = "no floor" if floor == 0 else "engine floor"
    for conv, q in tqdm(pairs, desc=f"  {label:<12}", unit="q", leave=False):
        other = conversations[(conversations.index(conv) + 1) % len(conversations)]
        own = ask(target, f"locomo-{conv['id']}", q["q"], floor)
        foreign = ask(target, f"locomo-{other['id']}", q["q"], floor)
        recall.append(len({r["dia"] for r in own[:10]} & q["ev"]) / len(q["ev"]))
        related_n.append(len(own))
        related_t.append(sum(r["tokens"] for r in own))
        unrelated_n.append(len(foreign))
        unrelated_t.append(sum(r["tokens"] for r in foreign))
        rankings["related"].append((sorted(q["ev"]), own))
        rankings["unrelated"].append(foreign)
    mean = statistics.fmean
    return {
        "R@10": mean(recall),
        "related": (mean(related_n), mean(related_t)),
        "unrelated": (mean(unrelated_n), mean(unrelated_t)),
        "rankings": rankings,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--dump", type=Path, help="write the unfloored rankings as JSON")
    args = parser.parse_args()
    conversations = load(args.data)
    target = InProcess()
    target.configure(EMBEDDERS["static"])
    base = int(time.time() * 1000) - 10 * len(conversations) * 10_000
    for i, conv in enumerate(tqdm(conversations, desc="ingest", unit="conv")):
        target.ingest(list(memories(conv, base + i * 10_000)))
    target.reindex()
    # The chat path's request: the settings' budget (2000 tokens) and limit.
    off = figures(target, conversations, 0.0)
    on = figures(target, conversations, None)
    if args.dump:
        args.dump.write_text(json.dumps(off["rankings"]))
    questions = sum(len(c["questions"]) for c in conversations)
    print(f"\n{questions} questions, each asked of its own and of another conversation")
    header = f"{'':<14}{'R@10':>7}{'related: memories':>20}{'tokens':>8}"
    print(header + f"{'unrelated: memories':>22}{'tokens':>8}")
    for label, r in (("no floor", off), ("engine floor", on)):
        print(
            f"{label:<14}{r['R@10']:>7.3f}{r['related'][0]:>20.1f}{r['related'][1]:>8.0f}"
            f"{r['unrelated'][0]:>22.2f}{r['unrelated'][1]:>8.0f}"
        )


if __name__ == "__main__":
    main()
