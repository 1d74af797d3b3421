"""Random sequences of writes through the REST API (create, update, delete, import,
forget in bulk), checked after every step against a model of what must be stored, and
for isolation between API keys on every read path (list, get, export, preview, chat
injection through a stub upstream).

A real libSQL file and the real app (in process, through Starlette's test client);
Hypothesis shrinks any failing sequence to a short reproduction.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    precondition,
    rule,
)
from pydantic import SecretStr

from engram import Config, MemorySettingsUpdate, open_engine
from engram.domain.models import ApiKeyCreate
from shared.http import create_app
from tests.support.http import ADMIN_TOKEN, AUTH
from tests.support.upstream_stub import StubUpstream

# A small vocabulary, so every key's memories match the others' queries: a leak would show.
WORDS = ["biscuit", "postgres", "tea", "rust", "berlin", "jazz", "kayak", "budget"]
OWNERS = 3
SESSIONS = [None, "s1", "s2"]

words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
keys = st.sampled_from([None, "k:a", "k:b", "k:c", "k:d"])
metadata = st.dictionaries(st.sampled_from(["a", "b", "c"]), st.integers(0, 9), max_size=2)


@dataclass
class Stored:
    owner: str
    key: str
    content: str
    session: str | None
    metadata: dict[str, Any] = field(default_factory=dict)


class MemoryApi(RuleBasedStateMachine):
    memories = Bundle("memories")

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.TemporaryDirectory()
        path = Path(self.tmp.name)
        self.stub = StubUpstream()
        self.stub.__enter__()
        config = Config(
            db_url=f"file:{path / 'engram.db'}",
            data_dir=path / "data",
            admin_token=SecretStr(ADMIN_TOKEN),
            upstream_base_url=self.stub.url,
            upstream_api_key=SecretStr("sk"),
            settings_cache_ttl_s=0,
        )
        self.engine = open_engine(config, jobs="manual")
        self.engine.settings.update(MemorySettingsUpdate(enabled=True))
        self.keys = [self.engine.keys.create(ApiKeyCreate(name=f"k{i}")) for i in range(OWNERS)]
        self.client = TestClient(create_app(config=config, engine=lambda: self.engine))
        self.model: dict[str, Stored] = {}  # memory id -> what must be stored

    def teardown(self) -> None:
        self.client.close()
        self.engine.close()
        self.stub.__exit__(None, None, None)
        self.tmp.cleanup()

    def owner(self, index: int) -> str:
        return self.keys[index].id

    def by_key(self, owner: str, key: str) -> str | None:
        return next((i for i, m in self.model.items() if m.owner == owner and m.key == key), None)

    # -- writes ----------------------------------------------------------------------------

    @initialize()
    def start(self) -> None:
        assert self.client.get("/api/memory", headers=AUTH).json()["total"] == 0

    @rule(
        target=memories,
        who=st.integers(0, OWNERS - 1),
        key=keys,
        content=words,
        session=st.sampled_from(SESSIONS),
        extra=metadata,
    )
    def create(self, who: int, key: str | None, content: str, session: str | None, extra):
        owner = self.owner(who)
        body: dict[str, Any] = {"apiKeyId": owner, "content": content, "metadata": extra}
        if key is not None:
            body["key"] = key
        if session is not None:
            body["sessionId"] = session
        response = self.client.post("/api/memory", json=body, headers=AUTH)
        memory = response.json()
        existing = self.by_key(owner, memory["key"])
        assert response.status_code == (200 if existing else 201), response.text
        if existing:
            assert memory["id"] == existing
            stored = self.model[existing]
            stored.content, stored.metadata = content, {**stored.metadata, **extra}
        else:
            self.model[memory["id"]] = Stored(owner, memory["key"], content, session, extra)
        return memory["id"]

    @rule(memory=memories, content=words)
    def update(self, memory: str, content: str) -> None:
        response = self.client.put(f"/api/memory/{memory}", json={"content": content}, headers=AUTH)
        if memory not in self.model:
            assert response.status_code == 404
            return
        assert response.status_code == 200, response.text
        self.model[memory].content = content

    @rule(memory=consumes(memories))
    def delete(self, memory: str) -> None:
        response = self.client.delete(f"/api/memory/{memory}", headers=AUTH)
        assert response.status_code == (204 if memory in self.model else 404)
        self.model.pop(memory, None)
        assert self.client.get(f"/api/memory/{memory}", headers=AUTH).status_code == 404

    @rule(
        who=st.integers(0, OWNERS - 1),
        batch=st.lists(st.tuples(st.sampled_from(["k:a", "k:e", "k:f"]), words), max_size=4),
    )
    def import_(self, who: int, batch: list[tuple[str, str]]) -> None:
        owner = self.owner(who)
        items = [{"apiKeyId": owner, "key": key, "content": content} for key, content in batch]
        response = self.client.post("/api/memory/import", json=items, headers=AUTH)
        if not items:
            assert response.status_code == 422  # an empty import is refused, as documented
            return
        assert response.status_code == 200, response.text
        created = 0
        for key, content in batch:
            existing = self.by_key(owner, key)
            if existing is None:
                created += 1
                listed = self.client.get(
                    "/api/memory", params={"apiKeyId": owner, "q": key, "limit": 500}, headers=AUTH
                ).json()["data"]
                found = next(m["id"] for m in listed if m["key"] == key)
                self.model[found] = Stored(owner, key, content, None)
            else:
                self.model[existing].content = content
        assert response.json()["created"] == created

    @rule(who=st.integers(0, OWNERS - 1), session=st.sampled_from(SESSIONS), dry=st.booleans())
    def forget(self, who: int, session: str | None, dry: bool) -> None:
        owner = self.owner(who)
        params = {"apiKeyId": owner, "dryRun": str(dry).lower()}
        if session is not None:
            params["sessionId"] = session
        doomed = [i for i, m in self.mine(owner).items() if session is None or m.session == session]
        response = self.client.delete("/api/memory", params=params, headers=AUTH)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["matched"] == len(doomed)
        assert body["deleted"] == (0 if dry else len(doomed))
        if not dry:
            for memory in doomed:
                del self.model[memory]
                assert self.client.get(f"/api/memory/{memory}", headers=AUTH).status_code == 404

    # -- reads, checked after every step --------------------------------------------------------

    def mine(self, owner: str) -> dict[str, Stored]:
        return {i: m for i, m in self.model.items() if m.owner == owner}

    @invariant()
    def lists_and_exports_match_the_model(self) -> None:
        for who in range(OWNERS):
            owner = self.owner(who)
            expected = {i: m.content for i, m in self.mine(owner).items()}
            page = self.client.get(
                "/api/memory", params={"apiKeyId": owner, "limit": 500}, headers=AUTH
            ).json()
            assert {m["id"]: m["content"] for m in page["data"]} == expected
            assert page["total"] == len(expected)
            exported = self.client.get(
                "/api/memory/export", params={"apiKeyId": owner}, headers=AUTH
            ).text
            lines = [json.loads(line) for line in exported.splitlines()]
            assert {m["id"]: m["content"] for m in lines} == expected
            assert all(m["apiKeyId"] == owner for m in lines)

    @invariant()
    def every_memory_is_read_back_whole(self) -> None:
        for memory, stored in self.model.items():
            body = self.client.get(f"/api/memory/{memory}", headers=AUTH).json()
            assert (body["apiKeyId"], body["key"], body["content"]) == (
                stored.owner,
                stored.key,
                stored.content,
            )
            assert body["metadata"] == stored.metadata
            assert body["sessionId"] == stored.session

    @precondition(lambda self: bool(self.model))
    @invariant()
    def no_key_retrieves_another_keys_memories(self) -> None:
        for who in range(OWNERS):
            owner = self.owner(who)
            mine = set(self.mine(owner))
            # Every strategy (each reads the keys' rows its own way: fused scores, the
            # nearest vectors beside a keyword search, the newest rows), and the list's search.
            for strategy in ("hybrid", "semantic", "exact"):
                result = self.client.post(
                    "/api/memory/retrieve-preview",
                    json={
                        "apiKeyId": owner,
                        "query": " ".join(WORDS),
                        "limit": 100,
                        "strategy": strategy,
                    },
                    headers=AUTH,
                ).json()
                assert {r["id"] for r in result["results"]} <= mine, strategy
            for word in WORDS:
                listed = self.client.get(
                    "/api/memory", params={"apiKeyId": owner, "q": word}, headers=AUTH
                ).json()
                assert {m["id"] for m in listed["data"]} <= mine, word

    @rule(who=st.integers(0, OWNERS - 1), question=words)
    def chat_injects_only_the_keys_own_memories(self, who: int, question: str) -> None:
        owner = self.owner(who)
        before = len(self.stub.requests)
        response = self.client.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": question}]},
            headers={"Authorization": f"Bearer {self.keys[who].secret}"},
        )
        assert response.status_code == 200, response.text
        sent = self.stub.requests[before]["json"]["messages"]
        injected = [m for m in sent if str(m.get("content", "")).startswith("Memory context:")]
        mine = {m.content for m in self.mine(owner).values()}
        for message in injected:
            for line in message["content"].splitlines()[1:]:
                assert line.removeprefix("- ") in mine, (line, owner)


MemoryApi.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestMemoryApi = MemoryApi.TestCase
