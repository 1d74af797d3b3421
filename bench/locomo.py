"""LoCoMo retrieval benchmark: recall of evidence turns, per strategy and embedder.

Each conversation is one API key; each dialogue turn is one memory (session id =
the LoCoMo session, so neighbours are defined; ``metadata.speaker`` and
``metadata.date`` = who said it and the session's date; a shared photo's caption
is part of the turn's text). Every question of categories 1-4 is asked; recall@k
= |evidence found in the top k| / |evidence|, averaged (the dataset's README).
``--plain`` imports each turn the plain way a new user would ("Caroline: text" as the
content, no speaker or date metadata). Also printed: the metric engram-search
publishes, session any-hit R@5 (an evidence turn's session among the sessions of the
first 5 distinct sessions ranked), over every question of all five categories.

Run in process:   .venv/bin/python bench/locomo.py
Through the API:  .venv/bin/python bench/locomo.py --api http://127.0.0.1:8080 --token T
Data (CC BY-NC 4.0, not shipped): ../shared/bench/locomo/locomo-dev.json by default.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "locomo" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
DEPTH = (
    50  # memories asked per question: S@5 needs 5 distinct sessions, which 20 turns may not span
)
# (label, settings) for each embedder; "none" is the keyword tier alone.
EMBEDDERS = {
    "none": {"staticEnabled": False, "transformersEnabled": False, "embeddingSource": "auto"},
    "static": {"staticEnabled": True, "transformersEnabled": False, "embeddingSource": "static"},
    "transformers": {
        "staticEnabled": False,
        "transformersEnabled": True,
        "embeddingSource": "transformers",
    },
}
STRATEGIES = ("exact", "semantic", "hybrid")


def load(path: Path) -> list[dict[str, Any]]:
    conversations = []
    for item in json.loads(path.read_text()):
        talk = item["conversation"]
        sessions = sorted(
            (k for k in talk if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k[8:])
        )
        turns = []
        for session in sessions:
            for turn in talk[session]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                turns.append(
                    {
                        "dia": turn["dia_id"],
                        "session": session,
                        "text": text,
                        "speaker": turn["speaker"],
                        "date": talk[f"{session}_date_time"],
                    }
                )
        questions = []
        for qa in item["qa"]:
            evidence = {
                e.strip() for x in qa.get("evidence", []) for e in x.split(";") if e.strip()
            }
            if evidence:
                questions.append({"q": qa["question"], "cat": qa["category"], "ev": evidence})
        sessions_of = {t["dia"]: t["session"] for t in turns}
        conversations.append(
            {"id": item["sample_id"], "turns": turns, "questions": questions, "of": sessions_of}
        )
    return conversations


def said_at_ms(turn: dict[str, Any]) -> int:
    """When the turn's session took place ("1:56 pm on 8 May, 2023"), in UTC milliseconds."""
    from datetime import UTC, datetime

    moment = datetime.strptime(turn["date"], "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def memories(
    conv: dict[str, Any], start_ms: int, plain: bool = False, timed: bool = True
) -> Iterator[dict[str, Any]]:
    for i, turn in enumerate(conv["turns"]):
        metadata = {"speaker": turn["speaker"], "date": turn["date"], "diaId": turn["dia"]}
        # A plain import of a conversation dates each turn when it was said (createdAt, a
        # field of every memory, not metadata); one millisecond apart keeps dialogue order.
        at = said_at_ms(turn) + i if plain and timed else start_ms + i
        yield {
            "apiKeyId": f"locomo-{conv['id']}",
            # An opaque key: the key is searchable text, and "D1:3" would match any "3".
            "key": "turn:" + hashlib.sha256(turn["dia"].encode()).hexdigest()[:16],
            "sessionId": turn["session"],
            "content": f"{turn['speaker']}: {turn['text']}" if plain else turn["text"],
            # (diaId is only how the benchmark scores; retrieval never reads it)
            "metadata": {"diaId": turn["dia"]} if plain else metadata,
            "createdAt": _iso(at),
        }


def _iso(ms: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds")


class InProcess:
    def __init__(self) -> None:
        from datetime import datetime

        from engram import Config, open_engine

        self._tmp = tempfile.TemporaryDirectory()
        # Turns dated when they were said are questioned right after their conversation
        # (the engine's clock), as through the proxy; otherwise the clock is the real one.
        self.now: datetime | None = None
        self.ended: dict[str, datetime] = {}
        self.engine = open_engine(
            Config(db_url=f"file:{self._tmp.name}/locomo.db", data_dir=self._tmp.name),
            clock=self._clock,
            jobs="manual",  # vectors come from reindex below, as the embedding worker would
        )

    def _clock(self) -> Any:
        from datetime import UTC, datetime

        return self.now or datetime.now(UTC)

    def ingest(self, items: list[dict[str, Any]]) -> None:
        from datetime import timedelta

        from engram.domain.models import MemoryImport

        imported = [MemoryImport.model_validate(i) for i in items]
        last = max(i.created_at for i in imported if i.created_at)
        if last < self._clock() - timedelta(days=30):  # an old conversation, dated
            from engram import MemorySettingsUpdate

            # LoCoMo's sessions span months: as through the proxy, a year's retention.
            self.engine.settings.update(MemorySettingsUpdate(retention_days=365))
            self.ended[imported[0].api_key_id] = last + timedelta(seconds=1)
        self.engine.memories.upsert_many(imported)

    def configure(self, settings: dict[str, Any]) -> None:
        from engram import MemorySettingsUpdate

        self.engine.settings.update(MemorySettingsUpdate.model_validate(settings))

    def reindex(self) -> None:
        result = self.engine.vectors.reindex(max_seconds=30)
        while result.started and result.pending:
            result = self.engine.vectors.reindex(max_seconds=30)
        if self.engine.qdrant.store() is not None and result.started:
            while self.engine.vectors.reindex(max_seconds=60, target="qdrant").pending:
                pass

    def use_qdrant(self) -> None:
        from engram import MemorySettingsUpdate
        from engram.domain.models import QdrantSettingsUpdate

        self.engine.qdrant.update(QdrantSettingsUpdate(enabled=True))
        self.engine.settings.update(MemorySettingsUpdate(vector_store="qdrant"))

    def retrieve(self, owner: str, query: str, strategy: str) -> tuple[list[str], str | None]:
        from engram.domain.models import RetrievalRequest

        self.now = self.ended.get(owner)
        request = RetrievalRequest(
            query=query, strategy=strategy, limit=DEPTH, max_tokens=DEPTH * 800
        )
        result = self.engine.retrieval.preview(owner, request)
        return [r.metadata["diaId"] for r in result.results], result.resolution.reason


class ViaProxy(InProcess):
    """The product's own path: each conversation played through the chat proxy, one
    speaker as the user (the message's ``name``), a stub upstream answering with the
    other speaker's next turn, each request carrying the exchange before it (the other
    speaker's message named, as a client names a persona), the session's date as the
    time of the request; memory on, ``storeConversation`` on, ``extractFrom: both``.
    Scored by mapping stored turns back to their dialogue ids by text (extracted facts
    count as misses, as for users)."""

    def __init__(self) -> None:
        from datetime import UTC, datetime

        from fastapi.testclient import TestClient
        from pydantic import SecretStr

        from engram import Config, MemorySettingsUpdate, open_engine
        from shared.http import create_app

        sys.path.insert(0, str(ROOT))
        from tests.support.upstream_stub import StubUpstream

        self._tmp = tempfile.TemporaryDirectory()
        self.now = datetime(2023, 1, 1, tzinfo=UTC)
        self.stub = StubUpstream(record=False)
        self.stub.start()
        config = Config(
            db_url=f"file:{self._tmp.name}/locomo.db",
            data_dir=self._tmp.name,
            admin_token=SecretStr("bench"),
            upstream_base_url=self.stub.url,
            upstream_api_key=SecretStr("stub"),
        )
        self.config = config
        self.engine = open_engine(config, clock=lambda: self.now, jobs="manual")
        self.engine.settings.update(
            # LoCoMo's sessions span months: at the default 30-day retention most of a
            # conversation is past it when the questions come (as it would be for users).
            MemorySettingsUpdate(
                enabled=True, store_conversation=True, extract_from="both", retention_days=365
            )
        )
        self.client = TestClient(create_app(config=config, engine=lambda: self.engine))
        self.keys: dict[str, str] = {}
        self.dia_of: dict[str, dict[str, str]] = {}
        self.ended: dict[str, Any] = {}
        # Per strategy, (profile, recall) tokens a chat would inject for each question.
        self.injected: dict[str, list[tuple[int, int]]] = defaultdict(list)

    def play(self, conv: dict[str, Any]) -> None:
        from datetime import datetime, timedelta

        from engram.domain.models import ApiKeyCreate

        made = self.engine.keys.create(ApiKeyCreate(name=f"locomo-{conv['id']}"))
        self.keys[f"locomo-{conv['id']}"] = made.id
        texts = self.dia_of.setdefault(made.id, {})
        turns = conv["turns"]
        user = turns[0]["speaker"]
        headers = {"Authorization": f"Bearer {made.secret}"}
        history: list[dict[str, str]] = []  # the exchange before, as a client sends it
        i = 0
        while i < len(turns):
            turn = turns[i]
            answer = turns[i + 1] if i + 1 < len(turns) else None
            if turn["speaker"] != user or (answer and answer["speaker"] == user):
                answer = None  # two turns of one side in a row: no answer between them
            moment = datetime.strptime(turn["date"], "%I:%M %p on %d %B, %Y")
            self.now = moment.replace(tzinfo=self.now.tzinfo) + timedelta(seconds=i)
            self.stub.reply = answer["text"] if answer else ""
            role = "user" if turn["speaker"] == user else "assistant"
            message = {"role": "user", "content": turn["text"], "name": turn["speaker"]}
            if role == "assistant":  # the other side speaks first: sent before the user's
                i += 1
                texts.setdefault(" ".join(turn["text"].split()), turn["dia"])
                history = [{"role": "assistant", "content": turn["text"], "name": turn["speaker"]}]
                continue
            response = self.client.post(
                "/v1/chat/completions",
                json={"model": "gpt-4o", "messages": [*history, message]},
                headers={**headers, "x-engram-session-id": turn["session"]},
            )
            assert response.status_code == 200, response.text
            self.engine.queues.extraction.drain()
            texts[" ".join(turn["text"].split())] = turn["dia"]
            if answer:
                texts[" ".join(answer["text"].split())] = answer["dia"]
                reply = {"role": "assistant", "content": answer["text"], "name": answer["speaker"]}
                history = [message, reply]
            else:
                history = [message]
            i += 2 if answer else 1
        self.ended[made.id] = self.now  # the questions come right after the conversation

    def reopen(self) -> None:
        """A fresh engine over the played database, as a server asked later has: nothing
        cached while the conversations were played (the keyword statistics' cache lives
        five minutes, and a play takes one to ten: the figures depended on the machine's
        speed, 0.787 played against 0.783 reopened)."""
        from fastapi.testclient import TestClient

        from engram import open_engine
        from shared.http import create_app

        self.engine.close()
        self.engine = open_engine(self.config, clock=lambda: self.now, jobs="manual")
        self.client = TestClient(create_app(config=self.config, engine=lambda: self.engine))

    def ingest(self, items: list[dict[str, Any]]) -> None:
        raise NotImplementedError("via the proxy, conversations are played, not imported")

    def retrieve(self, owner: str, query: str, strategy: str) -> tuple[list[str], str | None]:
        from engram.domain.models import RetrievalRequest

        key = self.keys[owner]
        self.now = self.ended[key]
        request = RetrievalRequest(
            query=query, strategy=strategy, limit=DEPTH, max_tokens=DEPTH * 800
        )
        result = self.engine.retrieval.preview(key, request)
        texts = self.dia_of[key]
        # Recall is scored on the recalled memories: the profile (facts about the
        # speaker, injected whatever the question) comes on top of them, in its own
        # budget, and is reported as tokens below.
        dias = [
            texts.get(" ".join(r.content.split()), "fact:" + r.id)
            for r in result.results
            if r.tier != "profile"
        ]
        # What a chat asking this would inject, at the default settings.
        asked = self.engine.retrieval.preview(key, RetrievalRequest(query=query, strategy=strategy))
        self.injected[strategy].append((asked.profile_tokens, asked.recall_tokens))
        return dias, result.resolution.reason


class OverHttp:
    def __init__(self, base: str, token: str) -> None:
        import httpx

        self.http = httpx.Client(
            base_url=base, timeout=120, headers={"Authorization": f"Bearer {token}"}
        )

    def ingest(self, items: list[dict[str, Any]]) -> None:
        body = "\n".join(json.dumps(i) for i in items)
        response = self.http.post(
            "/api/memory/import", content=body, headers={"Content-Type": "application/x-ndjson"}
        )
        response.raise_for_status()

    def configure(self, settings: dict[str, Any]) -> None:
        self.http.put("/api/settings/memory", json=settings).raise_for_status()

    def reindex(self) -> None:
        result = self.http.post("/api/memory/reindex", json={}).json()
        while result["started"] and result["pending"]:
            time.sleep(0.5)
            result = self.http.post("/api/memory/reindex", json={}).json()

    def use_qdrant(self) -> None:
        self.http.put("/api/settings/qdrant", json={"enabled": True}).raise_for_status()

    def retrieve(self, owner: str, query: str, strategy: str) -> tuple[list[str], str | None]:
        body = {
            "apiKeyId": owner,
            "query": query,
            "strategy": strategy,
            "limit": DEPTH,
            "maxTokens": DEPTH * 800,
        }
        data = self.http.post("/api/memory/retrieve-preview", json=body).json()
        return [r["metadata"]["diaId"] for r in data["results"]], data["resolution"]["reason"]


def evaluate(target: Any, conversations: list[dict[str, Any]], strategy: str) -> dict[str, Any]:
    recalls: dict[int, list[float]] = defaultdict(list)
    by_cat: dict[int, list[float]] = defaultdict(list)
    by_conv: dict[str, list[float]] = defaultdict(list)
    latency: list[float] = []
    session_hits: list[float] = []
    questions = [(c, q) for c in conversations for q in c["questions"]]
    for conv, q in tqdm(questions, desc=f"  {strategy:<8}", unit="q", leave=False):
        started = time.perf_counter()
        ranked, _ = target.retrieve(f"locomo-{conv['id']}", q["q"], strategy)
        latency.append((time.perf_counter() - started) * 1000)
        first: list[str] = []
        for dia in ranked:
            session = conv["of"].get(dia)
            if session is not None and session not in first:
                first.append(session)
        evidence_sessions = {conv["of"].get(e) for e in q["ev"]}
        session_hits.append(float(bool(evidence_sessions & set(first[:5]))))
        if q["cat"] not in CATEGORIES:
            continue  # turn recall: categories 1-4, as the dataset's README scores it
        for k in KS:
            recall = len(set(ranked[:k]) & q["ev"]) / len(q["ev"])
            recalls[k].append(recall)
            if k == 10:
                by_cat[q["cat"]].append(recall)
                by_conv[conv["id"]].append(recall)
    return {
        **{f"R@{k}": statistics.fmean(v) for k, v in recalls.items()},
        "cat": {c: statistics.fmean(v) for c, v in sorted(by_cat.items())},
        "S@5": statistics.fmean(session_hits),
        "conv": {c: statistics.fmean(v) for c, v in by_conv.items()},
        "p50": statistics.median(latency),
        "p95": statistics.quantiles(latency, n=20)[-1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--api", help="base URL of a running Engram server")
    parser.add_argument("--token", help="its admin token (with --api)")
    parser.add_argument("--embedders", default="none,static,transformers")
    parser.add_argument(
        "--plain", action="store_true", help='turns as "Speaker: text", no metadata'
    )
    parser.add_argument(
        "--undated",
        action="store_true",
        help="with --plain: every turn created at import time, not when it was said"
        " (always so with --api)",
    )
    parser.add_argument(
        "--via-proxy",
        action="store_true",
        help="play each conversation through the chat proxy (storeConversation on)",
    )
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument(
        "--no-facts",
        action="store_true",
        help="with --via-proxy: the rules read nothing (what the facts cost the turns' recall)",
    )
    parser.add_argument(
        "--as-played",
        action="store_true",
        help="with --via-proxy: ask the engine that played the conversations (its caches"
        " as the play left them) instead of a fresh one over the same database",
    )
    parser.add_argument(
        "--profile-tokens",
        type=int,
        help="with --via-proxy: the profile's budget (0: no profile); the default's otherwise",
    )
    parser.add_argument(
        "--vector-store",
        choices=["libsql", "qdrant"],
        default="libsql",
        help="qdrant: the Qdrant tier (embedded mode in process) answers vector queries",
    )
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"no LoCoMo data at {args.data}")
    conversations = load(args.data)
    target: Any = OverHttp(args.api, args.token) if args.api else InProcess()
    if args.via_proxy:
        if args.no_facts:
            from engram.adapters.extraction import RuleExtractor
            from engram.domain.models.facts import Extraction

            def nothing(self: Any, request: Any) -> list[Extraction]:
                return [Extraction([], text=turn.text) for turn in request.turns]

            RuleExtractor.extract = nothing  # type: ignore[method-assign]
        target = ViaProxy()
        if args.profile_tokens is not None:
            from engram import MemorySettingsUpdate

            target.engine.settings.update(MemorySettingsUpdate(profile_tokens=args.profile_tokens))
    if args.vector_store == "qdrant":
        target.use_qdrant()

    target.configure(EMBEDDERS["none"])
    turns = sum(len(c["turns"]) for c in conversations)
    started = time.perf_counter()
    base = int(time.time() * 1000) - 10 * len(conversations) * 10_000
    # Dated as said, the questions come right after each conversation on the engine's
    # clock; a server's clock cannot be moved, so over --api turns are dated at import.
    dated = not args.undated and not args.api
    for i, conv in enumerate(tqdm(conversations, desc="ingest", unit="conv")):
        if args.via_proxy:
            target.play(conv)
        else:
            target.ingest(list(memories(conv, base + i * 10_000, args.plain, dated)))
    rate = turns / (time.perf_counter() - started)
    if args.via_proxy and not args.as_played:
        target.reopen()
    scored = sum(q["cat"] in CATEGORIES for c in conversations for q in c["questions"])
    every = sum(len(c["questions"]) for c in conversations)
    print(
        f"\n{len(conversations)} conversations, {turns} turns ingested at {rate:,.0f}/s"
        f" ({'via the proxy' if args.via_proxy else 'plain' if args.plain else 'with metadata'})"
        f", {scored}"
        f" questions of categories 1-4 (turn recall), {every} of all five (session S@5)"
    )

    rows = []
    for embedder in args.embedders.split(","):
        if args.via_proxy:
            target.injected.clear()
        target.configure(EMBEDDERS[embedder])
        started = time.perf_counter()
        target.reindex()
        embed_s = time.perf_counter() - started
        print(f"embedder {embedder}: vectors ready in {embed_s:.1f} s")
        for strategy in args.strategies.split(","):
            if embedder != "none" and strategy == "exact":
                continue  # the same for every embedder
            rows.append((embedder, strategy, evaluate(target, conversations, strategy)))

    header = f"{'embedder':<13}{'strategy':<10}" + "".join(f"{f'R@{k}':>7}" for k in KS)
    header += "".join(f"{name[:11]:>12}" for name in CATEGORIES.values())
    print("\n" + header + f"{'S@5':>7}{'p50 ms':>9}{'p95 ms':>9}")
    for embedder, strategy, r in rows:
        line = f"{embedder:<13}{strategy:<10}" + "".join(f"{r[f'R@{k}']:>7.3f}" for k in KS)
        line += "".join(f"{r['cat'].get(c, 0):>12.3f}" for c in CATEGORIES)
        print(line + f"{r['S@5']:>7.3f}{r['p50']:>9.2f}{r['p95']:>9.2f}")
    print("\nR@10 per conversation (keep a change only if each one improves)")
    for embedder, strategy, r in rows:
        cells = "  ".join(f"{c} {v:.3f}" for c, v in r["conv"].items())
        print(f"{embedder:<13}{strategy:<10}{cells}")
    if args.via_proxy:
        settings = target.engine.settings.get()
        print(
            f"\nInjected tokens per request at the default settings (maxTokens"
            f" {settings.max_tokens}, profileTokens {settings.profile_tokens}), last embedder:"
        )
        for strategy, spent in target.injected.items():
            profile = statistics.fmean(p for p, _ in spent)
            recall = statistics.fmean(r for _, r in spent)
            print(
                f"  {strategy:<10} {profile + recall:7.1f} (profile {profile:.1f},"
                f" recall {recall:.1f}) over {len(spent)} questions"
            )


if __name__ == "__main__":
    main()
