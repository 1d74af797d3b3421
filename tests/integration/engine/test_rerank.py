"""The optional remote rerank, against a real local /rerank server; fail-open."""

from __future__ import annotations

import pytest

from engram import Config, MemorySettingsUpdate, open_engine
from engram.domain.models import MemoryCreate, RetrievalRequest, Strategy
from tests.support.upstream_stub import StubUpstream


@pytest.fixture
def stub():
    with StubUpstream() as upstream:
        yield upstream


@pytest.fixture
def reranking(engine, stub, db):
    config = Config(db_url=engine.config.db_url, upstream_base_url=stub.url, upstream_api_key="sk")
    ranked = open_engine(config, clock=engine.clock, jobs="manual", database=db)
    for key, content in [
        ("a", "green tea every morning"),
        ("b", "tea with milk and sugar in the afternoon"),
        ("c", "coffee black"),
    ]:
        ranked.memories.create(MemoryCreate(api_key_id="k1", key=key, content=content))
    ranked.settings.update(MemorySettingsUpdate(rerank_enabled=True, rerank_provider_model="rr"))
    return ranked


def keys(result):
    return [r.key for r in result.results]


def test_rerank_reorders_the_top_candidates(reranking, stub):
    query = "tea with milk in the afternoon"
    result = reranking.retrieval.retrieve(
        "k1", RetrievalRequest(query=query, strategy=Strategy.HYBRID)
    )
    assert keys(result)[0] == "b"  # the stub scores by shared words
    assert stub.rerank_calls == 1
    sent = stub.requests[-1]["json"]
    assert sent["model"] == "rr" and sent["query"] == query and len(sent["documents"]) == 3
    assert result.resolution.fallback is False


def test_a_failing_rerank_keeps_the_fused_order(reranking, stub):
    request = RetrievalRequest(query="tea with milk in the afternoon", strategy=Strategy.HYBRID)
    reranking.settings.update(MemorySettingsUpdate(rerank_enabled=False))
    fused = keys(reranking.retrieval.retrieve("k1", request))
    reranking.settings.update(MemorySettingsUpdate(rerank_enabled=True))
    stub.rerank_statuses = [500]
    result = reranking.retrieval.retrieve("k1", request)
    assert keys(result) == fused
    assert "rerank failed" in result.resolution.reason


def test_rerank_is_off_by_default_and_skips_exact(engine, stub, reranking):
    reranking.retrieval.retrieve("k1", RetrievalRequest(query="tea", strategy=Strategy.EXACT))
    assert stub.rerank_calls == 0
    engine.retrieval.retrieve(
        "k1", RetrievalRequest(query="tea")
    )  # rerank on, but no endpoint configured
    reranking.settings.update(MemorySettingsUpdate(rerank_enabled=False))
    reranking.retrieval.retrieve("k1", RetrievalRequest(query="tea"))
    assert stub.rerank_calls == 0
