"""What Engram learns from real conversations: LoCoMo played through the chat proxy.

Each conversation is played twice, once as each speaker: that speaker is the user (one
API key), the other speaker's next turn is the upstream's answer (a stub server), each
request carries the exchange before it, and the session's date is the time of the
request. Settings are the defaults with memory on (``--extractor`` chooses the extractor;
``--settings`` adds any other). After every request the extraction job is drained, and
the facts it created are attributed to the dialogue turn(s) it read.

Scored against the data set's per-session ``observation`` facts about each speaker:

- **recall**: an observation is recalled when a fact stored for that speaker, learnt
  from one of the observation's evidence turns, shares enough of its content words
  (``matches`` below: stems, without the speakers' names and function words). The
  matcher was calibrated against a hand-judged sample (docs/extraction.md).
- **precision** is judged, not computed: ``--sample N --sample-out FILE`` writes a seeded
  random sample of stored facts, each with the turn it came from and the turn before it,
  for judges to mark with the rubric in docs/extraction.md (true, about the right person,
  worth keeping). ``--judged FILE`` reads the marks back and prints the figures.
  ``--judgments FILE`` (marks on any facts, matched by speaker, turn and words) scores a
  run's every judged fact, and bounds what precision can buy: the recall left if no
  fact judged bad had been stored.
- instruction memories (standing instructions to the assistant) are counted and listed:
  nobody in LoCoMo gives the assistant a directive, so each one is a false positive.

Splits: ``tuning`` (conv-26, conv-30, conv-41) is what rules may be improved on;
``heldout`` (conv-42, conv-43) is never read for tuning: only its figures are looked at.

Run: ``.venv/bin/python bench/conversations.py [--split tuning|heldout|all]``
LLM: ``... --extractor llm --llm-url http://127.0.0.1:8000/v1 --llm-model NAME``
Data (CC BY-NC 4.0, not shipped): ../shared/bench/locomo/locomo-dev.json by default.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engram")]

import snowballstemmer  # noqa: E402
from tqdm import tqdm  # noqa: E402

from engram.adapters.extraction import worth_reading  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "locomo" / "locomo-dev.json"
SPLITS = {
    "tuning": ("conv-26", "conv-30", "conv-41"),
    "heldout": ("conv-42", "conv-43"),
}
SPLITS["all"] = SPLITS["tuning"] + SPLITS["heldout"]

_STEM = snowballstemmer.stemmer("english")
# Words that carry no fact of their own: function words, and the observations' framing.
_STOP = frozenset(
    """a an the and or but if of to in on at for from with by about as into onto over
    under after before since during than then so such that this these those it its is
    are was were be been being am do does did done have has had having not no nor too
    very can could will would shall should may might must just also still even ever
    only really quite some any each every all both more most much many few lot lots
    he she they them their theirs his her hers him himself herself themselves i me my
    mine myself we us our ours you your yours who whom whose which what when where why
    how there here up down out off again once while because like get got gets getting
    go goes going went gone make made makes making take took taken one ones thing
    things way time times day days recent recently currently feel feels felt find
    finds found new other others own well good great""".split()
)


def stems(text: str, names: frozenset[str] = frozenset()) -> set[str]:
    words = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in names]
    return {s for s in _STEM.stemWords(words) if s not in _STOP and len(s) > 1}


def matches(observation: set[str], fact: set[str]) -> bool:
    """Whether a fact states (the core of) an observation: it shares at least two of the
    observation's content stems. Calibrated on 113 (observation, fact) pairs of the same
    turns judged by hand (docs/extraction.md): agreement 0.876, and it errs on the low
    side (4 pairs counted that the judge did not, 10 missed that the judge counted)."""
    return len(observation & fact) >= 2


# -- the data -----------------------------------------------------------------------------


@dataclass
class Turn:
    dia: str
    session: str
    speaker: str
    text: str
    at: datetime


@dataclass
class Conversation:
    id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    # speaker -> [(observation, evidence dia ids)]
    observations: dict[str, list[tuple[str, frozenset[str]]]]


def load(path: Path, wanted: tuple[str, ...], first: int = 0) -> list[Conversation]:
    """The wanted conversations; with ``first``, only their first sessions and the
    observations about those (a slow model measured on part of the data)."""
    conversations = []
    for item in json.loads(path.read_text()):
        if item["sample_id"] not in wanted:
            continue
        talk = item["conversation"]
        sessions = sorted(
            (k for k in talk if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k[8:])
        )
        if first:
            sessions = sessions[:first]
        turns = []
        for session in sessions:
            when = datetime.strptime(talk[f"{session}_date_time"], "%I:%M %p on %d %B, %Y")
            for index, turn in enumerate(talk[session]):
                turns.append(
                    Turn(
                        turn["dia_id"],
                        session,
                        turn["speaker"],
                        turn["text"],
                        when.replace(tzinfo=UTC) + timedelta(seconds=index),
                    )
                )
        observations: dict[str, list[tuple[str, frozenset[str]]]] = defaultdict(list)
        for name, per_session in item["observation"].items():
            if first and name.removesuffix("_observation") not in sessions:
                continue
            for speaker, facts in per_session.items():
                for text, evidence in facts:
                    ids = evidence if isinstance(evidence, list) else [evidence]
                    dias = frozenset(e.strip() for x in ids for e in str(x).split(";") if e.strip())
                    observations[speaker].append((text, dias))
        conversations.append(
            Conversation(
                item["sample_id"],
                (talk["speaker_a"], talk["speaker_b"]),
                turns,
                dict(observations),
            )
        )
    return conversations


# -- playing a conversation through the proxy ---------------------------------------------


@dataclass
class Stored:
    id: str
    content: str
    category: str
    type: str
    speaker: str
    conversation: str
    turns: list[str]  # the dialogue ids of the user turns the job read
    said: str  # the user's turn
    before: str  # the other speaker's turn before it
    when: str = ""  # the date the memory gives the event or plan, as resolved
    retired: bool = False


@dataclass
class Run:
    facts: list[Stored] = field(default_factory=list)
    turns_sent: int = 0
    seconds: float = 0.0
    extractor: dict[str, Any] | None = None


class FailedJobs(logging.Handler):
    """Counts the background jobs that failed. The proxy fails open, so an extractor
    that raises shows in the figures only as facts not stored: the summary says so."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "failed" in str(record.msg):
            self.count += 1


class Player:
    """The chat proxy in process (FastAPI's test client), a stub upstream, manual jobs."""

    def __init__(self, settings: dict[str, Any], environment: dict[str, str]) -> None:
        from fastapi.testclient import TestClient
        from pydantic import SecretStr

        from engram import Config, MemorySettingsUpdate, open_engine
        from shared.http import create_app
        from tests.support.upstream_stub import StubUpstream

        self._tmp = tempfile.TemporaryDirectory()
        self.now = datetime(2023, 1, 1, tzinfo=UTC)
        self.stub = StubUpstream(record=False)
        self.stub.start()
        config = Config(
            db_url=f"file:{self._tmp.name}/conversations.db",
            data_dir=self._tmp.name,
            admin_token=SecretStr("bench"),
            upstream_base_url=self.stub.url,
            upstream_api_key=SecretStr("stub"),
            **environment,
        )
        self.engine = open_engine(config, clock=lambda: self.now, jobs="manual")
        # LoCoMo's sessions span months: a year's retention keeps the whole conversation.
        self.engine.settings.update(
            MemorySettingsUpdate.model_validate({"enabled": True, "retentionDays": 365, **settings})
        )
        self.client = TestClient(create_app(config=config, engine=lambda: self.engine))
        self.extractor: dict[str, Any] | None = None

    def close(self) -> None:
        status = self.engine.status.report().extractor
        if status is not None and status.mode != "rules":
            self.extractor = status.model_dump()
        self.engine.close()
        self.stub.stop()
        self._tmp.cleanup()

    def _facts(self, owner: str) -> dict[str, Any]:
        from engram.domain.models import MemoryQuery

        found: dict[str, Any] = {}
        offset = 0
        while True:
            page = self.engine.memories.list_page(
                MemoryQuery(api_key_id=owner, limit=500, offset=offset)
            )
            for memory in page.data:
                if memory.metadata.get("kind") != "turn":
                    found[memory.id] = memory
            offset += len(page.data)
            if len(page.data) < 500:
                return found

    def play(self, conv: Conversation, user: str, run: Run) -> None:
        from engram.domain.models import ApiKeyCreate

        made = self.engine.keys.create(ApiKeyCreate(name=f"{conv.id}-{user}"))
        headers = {"Authorization": f"Bearer {made.secret}"}
        known: dict[str, Stored] = {}
        history: list[dict[str, str]] = []
        previous: Turn | None = None
        turns = conv.turns
        for index, turn in enumerate(turns):
            if turn.speaker != user:
                previous = turn
                history = [*history[-1:], {"role": "assistant", "content": turn.text}]
                history[-1]["name"] = turn.speaker
                continue
            answer = turns[index + 1] if index + 1 < len(turns) else None
            self.stub.reply = answer.text if answer and answer.speaker != user else "OK."
            self.now = turn.at
            message = {"role": "user", "content": turn.text, "name": user}
            response = self.client.post(
                "/v1/chat/completions",
                json={"model": "gpt-4o", "messages": [*history[-4:], message]},
                headers={**headers, "x-engram-session-id": f"{conv.id}-{turn.session}"},
            )
            assert response.status_code == 200, response.text
            run.turns_sent += 1
            self.engine.queues.extraction.drain()
            history = [*history, message][-4:]
            now = self._facts(made.id)
            for memory_id, memory in now.items():
                if memory_id in known:
                    continue
                known[memory_id] = Stored(
                    id=memory_id,
                    content=memory.content,
                    category=str(memory.metadata.get("category", "")),
                    type=str(memory.type.value if hasattr(memory.type, "value") else memory.type),
                    speaker=user,
                    conversation=conv.id,
                    turns=[turn.dia],
                    said=turn.text,
                    before=previous.text if previous else "",
                    when=str(memory.metadata.get("when", "")),
                )
                run.facts.append(known[memory_id])
            for memory_id, stored in known.items():
                if memory_id not in now:
                    stored.retired = True
            previous = None


# -- scoring ------------------------------------------------------------------------------


def recall(
    conversations: list[Conversation], facts: list[Stored]
) -> tuple[dict[str, tuple[int, int]], list[tuple[str, str, str | None]]]:
    """Per conversation (recalled, observations), and each observation with the fact
    that matched it (None: missed)."""
    by_turn: dict[tuple[str, str, str], list[Stored]] = defaultdict(list)
    for fact in facts:
        for dia in fact.turns:
            by_turn[(fact.conversation, fact.speaker, dia)].append(fact)
    figures: dict[str, tuple[int, int]] = {}
    listed: list[tuple[str, str, str | None]] = []
    for conv in conversations:
        names = frozenset(w for s in conv.speakers for w in s.lower().split())
        hit = total = 0
        for speaker, observations in conv.observations.items():
            for text, evidence in observations:
                total += 1
                wanted = stems(text, names)
                candidates = [f for d in evidence for f in by_turn[(conv.id, speaker, d)]]
                found = next(
                    (f for f in candidates if matches(wanted, stems(f.content, names))), None
                )
                hit += found is not None
                listed.append((speaker, text, found.content if found else None))
        figures[conv.id] = (hit, total)
    return figures, listed


def judged(path: Path) -> None:
    """Precision from a judged sample: each line the sample's fields plus ``true``,
    ``person`` and ``keep`` (booleans)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    n = len(rows)
    true = sum(bool(r["true"]) for r in rows)
    person = sum(bool(r["person"]) for r in rows)
    good = sum(bool(r["true"] and r["person"] and r["keep"]) for r in rows)
    print(
        f"judged {n}: true {true / n:.2f}, right person {person / n:.2f}, "
        f"true + right person + worth keeping {good / n:.2f}"
    )


def _mark(row: dict[str, Any]) -> bool:
    return bool(row["true"] and row["person"] and row["keep"])


def judgments(path: Path, conversations: list[Conversation], facts: list[Stored]) -> None:
    """The run's facts scored with marks judged on them (in any run that stored them), and
    the recall of the same run without the facts judged bad: how much of the recall
    rests on facts a judge would not keep."""
    marks: dict[tuple[str, str, str], bool] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            marks[(row["speaker"], row["said"], row["content"])] = _mark(row)
    found = [marks.get((f.speaker, f.said, f.content)) for f in facts]
    judged_facts = [m for m in found if m is not None]
    if not judged_facts:
        print("judgments: none of this run's facts is judged")
        return
    good = sum(judged_facts)
    print(
        f"judged {len(judged_facts)} of {len(facts)} facts: good {good}"
        f" ({good / len(judged_facts):.1%})"
    )
    kept = [f for f, m in zip(facts, found, strict=True) if m is not False]
    figures, _ = recall(conversations, kept)
    hit = sum(h for h, _ in figures.values())
    total = sum(t for _, t in figures.values())
    print(
        f"recall without the facts judged bad: {hit}/{total} = {hit / total:.3f}"
        " (precision's price in recall)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", choices=sorted(SPLITS), default="all")
    parser.add_argument("--extractor", default=None, help="rules, llm or rules+llm")
    parser.add_argument("--settings", default="{}", help="more memory settings, as JSON")
    parser.add_argument("--llm-url", default=None, help="the LLM extractor's base URL")
    parser.add_argument("--llm-model", default=None, help="the LLM extractor's model")
    parser.add_argument(
        "--llm-key-env", default=None, help="the variable holding the LLM endpoint's key"
    )
    parser.add_argument(
        "--sessions", type=int, default=0, help="only each conversation's first N sessions"
    )
    parser.add_argument("--sample", type=int, default=0, help="facts to sample for judging")
    parser.add_argument("--sample-out", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--facts-out", type=Path, default=None, help="every fact, as JSONL")
    parser.add_argument("--misses-out", type=Path, default=None, help="observations, as JSONL")
    parser.add_argument("--judged", type=Path, default=None, help="a judged sample to score")
    parser.add_argument(
        "--judgments", type=Path, default=None, help="judged facts to score this run with"
    )
    args = parser.parse_args()
    for given in (args.judged, args.judgments):
        if given is not None and not given.is_file():
            parser.error(f"no such file: {given}")
    if args.judged:
        judged(args.judged)
        return

    settings: dict[str, Any] = json.loads(args.settings)
    environment: dict[str, str] = {}
    if args.extractor:
        settings["extractor"] = args.extractor
    if args.llm_url:
        settings["extractorBaseUrl"] = args.llm_url
    if args.llm_model:
        settings["extractorModel"] = args.llm_model
    if args.llm_key_env:
        environment["ENGRAM_EXTRACTOR_API_KEY"] = os.environ[args.llm_key_env]
    conversations = load(args.data, SPLITS[args.split], args.sessions)
    failed = FailedJobs()
    logging.getLogger("engram.adapters.queues").addHandler(failed)
    player = Player(settings, environment)
    run = Run()
    started = time.perf_counter()
    try:
        plays = [(c, s) for c in conversations for s in c.speakers]
        for conv, speaker in tqdm(plays, desc="conversations x speakers", unit="play"):
            player.play(conv, speaker, run)
    finally:
        player.close()
    run.seconds = time.perf_counter() - started
    run.extractor = player.extractor

    figures, listed = recall(conversations, run.facts)
    hit = sum(h for h, _ in figures.values())
    total = sum(t for _, t in figures.values())
    print(
        f"split {args.split}"
        + (f" (first {args.sessions} sessions)" if args.sessions else "")
        + f": {len(conversations)} conversations, {run.turns_sent} user turns,"
        f" {run.seconds:.0f} s"
    )
    print(f"facts stored {len(run.facts)} ({sum(f.retired for f in run.facts)} retired since)")
    print(f"background jobs failed: {failed.count} (each is a warning above)")
    print(
        "by category: "
        + ", ".join(
            f"{c or '?'} {n}" for c, n in Counter(f.category for f in run.facts).most_common()
        )
    )
    for conv_id, (h, t) in figures.items():
        print(f"  {conv_id}: recall {h}/{t} = {h / t:.3f}")
    print(f"recall of observations: {hit}/{total} = {hit / total:.3f}")
    gated = sum(worth_reading(t.text) for c in conversations for t in c.turns)
    total_turns = sum(len(c.turns) for c in conversations)
    print(
        f"cost gate: {gated} of {total_turns} turns ({gated / total_turns:.1%}) would go to"
        " a model (llm, rules+llm)"
    )
    if run.extractor is not None:
        print("LLM extractor: " + ", ".join(f"{k} {v}" for k, v in run.extractor.items()))
    instructions = [f for f in run.facts if f.category == "instruction"]
    print(f"instruction memories: {len(instructions)}")
    for fact in instructions[:20]:
        print(f"    [{fact.speaker}] {fact.content!r}  <- {fact.said[:100]!r}")
    if args.judgments:
        judgments(args.judgments, conversations, run.facts)
    if args.facts_out:
        with args.facts_out.open("w") as out:
            for fact in run.facts:
                out.write(json.dumps(fact.__dict__) + "\n")
    if args.misses_out:
        with args.misses_out.open("w") as out:
            for speaker, text, found in listed:
                out.write(
                    json.dumps({"speaker": speaker, "observation": text, "matched": found}) + "\n"
                )
    if args.sample and args.sample_out:
        rng = random.Random(args.seed)
        chosen = rng.sample(run.facts, min(args.sample, len(run.facts)))
        with args.sample_out.open("w") as out:
            for fact in chosen:
                row = {
                    k: getattr(fact, k)
                    for k in ("id", "speaker", "category", "content", "said", "before")
                }
                out.write(json.dumps(row) + "\n")
        print(f"sampled {len(chosen)} facts into {args.sample_out}")


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    logging.disable(logging.INFO)  # one access log line per request drowns the figures
    main()
