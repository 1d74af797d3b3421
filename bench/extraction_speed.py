"""How long the rules take on the largest text they read: 64 KiB, per language.

For each language the rules read (English, Indonesian, Malay, Turkish), three classes of
adversarial text, each 64 KiB (what extraction reads of a message), each a few real
statements of that language buried in:

- ``runs``: long runs without spaces (of that language's letters, of digits, of base64);
- ``punctuation``: repeated punctuation (``!?!?``, ``....``, ``- - -``, ``,,,``, ``;;;``);
- ``scripts``: mixed scripts (Latin, Cyrillic, CJK, Arabic, emoji), in words and runs.

Every text is read in a fresh process state (the rules' sentence cache cleared), three
times; the best is kept. Also printed, for scale: ordinary chat (the LoCoMo turns, when
the data is beside the repository) at 64 KiB. Exits 1 when an adversarial text takes
more than ``--limit-ms`` (100).

Run: ``.venv/bin/python bench/extraction_speed.py``
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engram")]

from engram.adapters.extraction import extract  # noqa: E402
from engram.domain.models.facts import MAX_INPUT_BYTES  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "bench" / "locomo" / "locomo-dev.json"
STATEMENTS = {
    "en": [
        "I prefer dark mode in my editor.",
        "We adopted a rescue cat called Biscuit last weekend.",
        "I'm learning Japanese and just hit a 200 day streak.",
        "We can't use any GPL-licensed libraries.",
        "Always answer in British English.",
    ],
    "id": [
        "Saya lebih suka kopi tubruk.",
        "Kami tidak bisa pakai library berlisensi GPL.",
        "Saya selalu menulis tes dulu.",
        "Saya bekerja sebagai perawat di Bandung.",
    ],
    "ms": [
        "Saya ada dua ekor kucing.",
        "Kami baru pindah ke Penang bulan lepas.",
        "Aku suka nasi lemak.",
        "Saya sentiasa bangun awal.",
    ],
    "tr": [
        "TypeScript'i daha çok tercih ederim.",
        "Bu projede Next.js kullanacağım.",
        "Her zaman ESLint kullanırım projelerimde.",
        "GPL lisanslı kütüphaneleri kullanamıyoruz.",
    ],
}
LETTERS = {"en": "abcdefghij", "id": "abcdengkmu", "ms": "abcdengkmu", "tr": "çğıöşüabcd"}
PUNCTUATION = ["!?", ".", "- ", ",", ";", "?!", "…", "--", "!!!1", "*"]
SCRIPTS = ["Привет", "日本語のテキスト", "مرحبا", "😀🎉", "Ωμέγα", "한국어", "ภาษาไทย", "עברית"]


def _fill(parts: list[str], rng: random.Random, statements: list[str]) -> str:
    """About 64 KiB: noise from ``parts``, a real statement between some of it."""
    out: list[str] = []
    size = 0
    while size < MAX_INPUT_BYTES:
        said = rng.random() < 0.15
        piece = f" {rng.choice(statements)} " if said else rng.choice(parts)
        out.append(piece)
        size += len(piece.encode())
    return "".join(out).encode()[:MAX_INPUT_BYTES].decode(errors="ignore")


def adversarial(language: str, rng: random.Random) -> dict[str, str]:
    said = STATEMENTS[language]
    letters = LETTERS[language]
    runs = [rng.choice(letters) * rng.randint(500, 4000) for _ in range(40)]
    runs += ["1234567890" * 300, "QUJDREVGR0g=" * 400, "x" * 20_000]
    punctuation = [p * rng.randint(50, 2000) for p in PUNCTUATION for _ in range(4)]
    scripts = [" ".join(rng.choice(SCRIPTS) for _ in range(rng.randint(1, 40))) for _ in range(60)]
    scripts += [rng.choice(SCRIPTS) * 300 for _ in range(10)]
    return {
        "runs": _fill(runs, rng, said),
        "punctuation": _fill(punctuation, rng, said),
        "scripts": _fill(scripts, rng, said),
    }


def timed(text: str, repeats: int = 3) -> tuple[float, int]:
    best = float("inf")
    facts = 0
    for _ in range(repeats):
        # The sentence cache would make a second reading free: each reading starts cold.
        extract.__globals__["_read_sentence"].cache_clear()
        started = time.perf_counter()
        facts = len(extract(text).facts)
        best = min(best, time.perf_counter() - started)
    return best * 1000, facts


def chat_64k() -> str | None:
    if not LOCOMO.exists():
        return None
    turns = []
    for item in json.loads(LOCOMO.read_text()):
        talk = item["conversation"]
        for key, session in talk.items():
            if re.fullmatch(r"session_\d+", key):
                turns += [t["text"] for t in session]
    return "\n".join(turns).encode()[:MAX_INPUT_BYTES].decode(errors="ignore")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit-ms", type=float, default=100.0)
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    worst = 0.0
    print(f"{'language':9s} {'class':12s} {'KiB':>5s} {'ms':>8s} {'facts':>6s}")
    for language in STATEMENTS:
        for kind, text in adversarial(language, rng).items():
            ms, facts = timed(text)
            worst = max(worst, ms)
            print(f"{language:9s} {kind:12s} {len(text.encode()) / 1024:5.0f} {ms:8.1f} {facts:6d}")
    chat = chat_64k()
    if chat is not None:
        ms, facts = timed(chat)
        print(
            f"{'en':9s} {'chat':12s} {len(chat.encode()) / 1024:5.0f} {ms:8.1f} {facts:6d}"
            "   (ordinary LoCoMo turns, for scale)"
        )
    print(f"worst adversarial: {worst:.1f} ms (limit {args.limit_ms:.0f} ms)")
    sys.exit(1 if worst > args.limit_ms else 0)


if __name__ == "__main__":
    main()
