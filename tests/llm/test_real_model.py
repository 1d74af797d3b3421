"""The LLM extractor against a real model served on 127.0.0.1 (``make test-llm``: Gemma 3
270M from PyPI, served by llama.cpp). A model this small says little that is right, so
these tests check the pipeline, not the model: every call is answered or counted, what
is stored passes the same checks as any model's answer, and the chat never waits for it.
Skipped unless ``ENGRAM_TEST_LLM_URL`` names the server (not part of ``make test``)."""

from __future__ import annotations

import os

import pytest
from pydantic import SecretStr

from engram import MemorySettingsUpdate
from engram.domain.models import ApiKeyCreate, MemoryQuery
from engram.domain.models.facts import FACT_CATEGORIES
from tests.support.http import proxy_app, speaking_as, upstream_config
from tests.support.upstream_stub import StubUpstream

URL = os.environ.get("ENGRAM_TEST_LLM_URL")
MODEL = os.environ.get("ENGRAM_TEST_LLM_MODEL", "gemma-3-270m")
pytestmark = pytest.mark.skipif(not URL, reason="no model server (make test-llm)")


@pytest.fixture
def stub():
    with StubUpstream("That sounds lovely!", record=False) as upstream:
        yield upstream


@pytest.fixture
def config(config, stub):
    return upstream_config(
        config,
        stub,
        extractor_api_key=SecretStr("unused-by-a-local-server"),
        extractor_timeout_s=120.0,
    )


@pytest.fixture
def key(engine):
    engine.settings.update(
        MemorySettingsUpdate.model_validate(
            {"enabled": True, "extractor": "llm", "extractorBaseUrl": URL, "extractorModel": MODEL}
        )
    )
    return engine.keys.create(ApiKeyCreate(name="Sam"))


@pytest.fixture
def client(engine, key):
    with speaking_as(proxy_app(engine), key) as test_client:
        yield test_client


def say(client, engine, text):
    response = client.post(
        "/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": text, "name": "Sam"}]},
    )
    assert response.status_code == 200, response.text
    assert response.json()["choices"][0]["message"]["content"] == "That sounds lovely!"
    engine.queues.extraction.drain()


def test_every_call_to_a_real_model_is_stored_from_or_counted(engine, client, key):
    for text in (
        "We finally adopted a rescue cat last weekend, called Biscuit!",
        "I just started a new job as a nurse at the city hospital.",
        "My password is hunter2-Secret! and I live in Leeds.",
    ):
        say(client, engine, text)
    status = engine.status.report().extractor
    assert status is not None and status.mode == "llm"
    assert status.turns_sent == 3
    assert status.calls >= 1  # a session's turns may be read in one call
    assert 0 <= status.failed <= status.calls
    assert status.malformed <= status.failed
    # the model answered (schema or not) at least once: a response format this server
    # takes was found (llama.cpp refuses json_schema with a 500)
    assert status.calls - status.failed + status.malformed >= 1
    stored = [
        m
        for m in engine.memories.list_page(MemoryQuery(api_key_id=key.id, limit=100)).data
        if m.metadata.get("kind") != "turn"
    ]
    # what a failing or nonsense answer leaves is nothing; what is stored passed the checks
    assert status.failed < status.calls or not stored
    for memory in stored:
        assert memory.metadata["extractor"] == "llm"
        assert memory.metadata["category"] in FACT_CATEGORIES
        assert "hunter2" not in memory.content
    print(f"\nthe model stored {len(stored)}: {[m.content for m in stored]}; status {status}")
