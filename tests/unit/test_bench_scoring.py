"""The scoring of the extraction benches: a wrong count there misreports every figure
(bench/conversations.py --judgments, bench/everyday.py)."""

from __future__ import annotations

import importlib.util
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


conversations = _load("conversations")
everyday = _load("everyday")


def _fact(content: str, said: str, dia: str):
    return conversations.Stored(
        id=dia,
        content=content,
        category="event",
        type="episodic",
        speaker="Ann",
        conversation="c1",
        turns=[dia],
        said=said,
        before="",
    )


def test_judgments_score_judged_facts_and_recall_without_the_bad_ones(tmp_path, capsys):
    at = datetime(2023, 1, 1, tzinfo=UTC)
    conv = conversations.Conversation(
        id="c1",
        speakers=("Ann", "Bob"),
        turns=[conversations.Turn("D1:1", "S1", "Ann", "x", at)],
        observations={
            "Ann": [
                ("Ann adopted a rescue greyhound.", frozenset({"D1:1"})),
                ("Ann went bowling with coworkers.", frozenset({"D1:2"})),
                ("Ann learns the violin.", frozenset({"D1:3"})),
            ]
        },
    )
    facts = [
        _fact("adopted a rescue greyhound", "I adopted a rescue greyhound!", "D1:1"),
        _fact("went bowling with coworkers", "Went bowling with coworkers.", "D1:2"),
        _fact("learning the violin", "I'm learning the violin.", "D1:3"),  # not judged
    ]
    marks = tmp_path / "judged.jsonl"
    rows = [
        {"speaker": "Ann", "said": facts[0].said, "content": facts[0].content, "good": True},
        {"speaker": "Ann", "said": facts[1].said, "content": facts[1].content, "good": False},
    ]
    marks.write_text(
        "\n".join(
            json.dumps({**r, "true": True, "person": True, "keep": r.pop("good")}) for r in rows
        )
    )
    conversations.judgments(marks, [conv], facts)
    out = capsys.readouterr().out
    assert "judged 2 of 3 facts: good 1 (50.0%)" in out
    # the bowling fact is judged bad: its observation is no longer recalled; the unjudged
    # violin fact stays
    assert "recall without the facts judged bad: 2/3" in out


def test_an_everyday_fact_is_found_by_its_category_and_the_side_of_its_date():
    today = everyday.AT.date().isoformat()
    assert everyday._found({"category": "pet", "date": None}, ("pet", "x", None))
    assert not everyday._found({"category": "pet", "date": None}, ("family", "x", None))
    assert everyday._found({"category": "event", "date": "past"}, ("event", "x", today))
    assert not everyday._found({"category": "event", "date": "past"}, ("event", "x", None))
    assert not everyday._found({"category": "plan", "date": "future"}, ("plan", "x", today))
    assert everyday._found({"category": "plan", "date": "future"}, ("plan", "x", "2027-02"))
