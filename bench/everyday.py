"""Everyday messages in a language other than English: what the rules learn from them.

``bench/data/everyday_<lang>.json`` holds short chat messages, each with the personal
facts it states (a category, and whether the fact is dated in the past or the future),
and messages that state none. A fact is found when the rules store one of its category
for that message, dated on the right side of the message's time when a date is expected
(each stored fact matches one expectation at most). Every fact stored for a message
that states none is a false positive. The contents are listed with ``--verbose``, for a
reader to judge: the categories and dates are what is scored.

Run: ``.venv/bin/python bench/everyday.py [--lang tr] [--verbose]``
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engram")]

from engram.adapters.extraction import extract  # noqa: E402

AT = datetime(2026, 12, 3, 18, 0, tzinfo=UTC)


def _found(expected: dict[str, str | None], fact: tuple[str, str, str | None]) -> bool:
    category, _, when = fact
    today = AT.date().isoformat()
    if category != expected["category"]:
        return False
    if expected.get("date") == "past":
        return when is not None and when <= today
    if expected.get("date") == "future":
        return when is not None and when > today
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", default="tr")
    parser.add_argument("--verbose", action="store_true", help="every message, what was stored")
    args = parser.parse_args()
    path = ROOT / "bench" / "data" / f"everyday_{args.lang}.json"
    if not path.is_file():
        sets = sorted(p.stem.removeprefix("everyday_") for p in path.parent.glob("everyday_*.json"))
        parser.error(f"no set {args.lang!r}; the sets are: {', '.join(sets)}")
    cases = json.loads(path.read_text())
    expected = found = stored = wrong = 0
    for case in cases["cases"]:
        facts = [(f.category, f.content, f.when) for f in extract(case["text"], AT).facts]
        stored += len(facts)
        used: set[int] = set()
        for want in case["expect"]:
            expected += 1
            hit = next((i for i, f in enumerate(facts) if i not in used and _found(want, f)), None)
            if hit is not None:
                used.add(hit)
                found += 1
        if not case["expect"]:
            wrong += len(facts)
        if args.verbose:
            print(f"{case['id']} {case['text']!r}")
            print(f"    expected {[(e['category'], e.get('date')) for e in case['expect']]}")
            print(f"    stored   {facts}")
    print(
        f"{args.lang}: {found}/{expected} facts found ({found / expected:.0%}),"
        f" {stored} stored, {wrong} on messages that state none"
    )


if __name__ == "__main__":
    main()
