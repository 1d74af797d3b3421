"""The reference system's own extraction test cases (English and Turkish), each played
through the chat proxy with an API key of its own, as a user of the reference would see
them: what the chat stores, checked the way the reference's tests check it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram import MemorySettingsUpdate
from engram.domain.models import ApiKeyCreate, MemoryQuery
from tests.support.http import proxy_app, speaking_as, upstream_config
from tests.support.upstream_stub import StubUpstream

CASES = json.loads(
    (Path(__file__).parents[2] / "data" / "reference_extraction_cases.json").read_text("utf-8")
)["cases"]


@pytest.fixture(scope="module")
def stub():
    with StubUpstream("Noted.", record=False) as upstream:
        yield upstream


@pytest.fixture
def config(config, stub):
    return upstream_config(config, stub)


@pytest.fixture
def app(engine):
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    return proxy_app(engine)


def _holds(memory, expected) -> bool:
    content = memory.content.lower() if expected.get("lower") else memory.content
    return (
        memory.metadata.get("category") == expected["category"]
        and expected["contains"] in content
        and ("type" not in expected or memory.type.value == expected["type"])
    )


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_a_reference_case_through_the_proxy(engine, app, case):
    key = engine.keys.create(ApiKeyCreate(name=case["id"]))
    with speaking_as(app, key) as client:
        response = client.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": case["text"]}]},
        )
    assert response.status_code == 200, response.text
    engine.queues.extraction.drain()
    stored = engine.memories.list_page(MemoryQuery(api_key_id=key.id, limit=50)).data
    for expected in case["expect"]:
        assert any(_holds(m, expected) for m in stored), (
            expected,
            [(m.metadata.get("category"), m.content) for m in stored],
        )
