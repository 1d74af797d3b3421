"""A write on one instance is found by every strategy on another, within a bound: the
time the writer's embedding job takes (its in-process queue here, the SQS worker when
deployed); the reader reads the owner's version with every retrieval, so nothing it
holds is stale past that. Measured here: under a second; the bound held is 5 s."""

from __future__ import annotations

import time

import pytest

from engram import MemorySettingsUpdate, open_engine
from engram.domain.models import MemoryCreate, RetrievalRequest, Strategy

BOUND_S = 5.0


def found_within(engine, query: str, strategy: Strategy, wanted: str) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < BOUND_S:
        result = engine.retrieval.preview("k1", RetrievalRequest(query=query, strategy=strategy))
        contents = [r.content for r in result.results[:3]]
        if wanted in contents and not result.resolution.fallback:
            return time.monotonic() - started
        time.sleep(0.05)
    return None


@pytest.mark.parametrize("cold", [False, True], ids=["warm reader", "cold reader"])
def test_a_write_on_one_instance_is_found_semantically_on_another(config, cold):
    writer = open_engine(config, jobs="auto")
    reader = None if cold else open_engine(config, jobs="auto")
    try:
        writer.settings.update(MemorySettingsUpdate(enabled=True))
        writer.memories.create(MemoryCreate(api_key_id="k1", content="I play the cello"))
        if reader is not None:  # warmed: its indexes hold the key already
            reader.retrieval.preview("k1", RetrievalRequest(query="cello"))
        wanted = "My sister lives in Oslo"
        writer.memories.create(MemoryCreate(api_key_id="k1", content=wanted))
        reader = reader or open_engine(config, jobs="auto")
        for strategy in (Strategy.SEMANTIC, Strategy.HYBRID):
            took = found_within(reader, "where does my sister live", strategy, wanted)
            assert took is not None, f"{strategy} did not find the write within {BOUND_S} s"
    finally:
        writer.close()
        if reader is not None:
            reader.close()
