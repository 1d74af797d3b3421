"""A key's vectors are read in pages: a server's response limit (sqld: 10 MB by default,
"Response is too large" past it) never silently turns vector search into keywords.

Scaled down: a sqld answering at most 64 KB, 200 memories of 256 float32 (over 200 KB).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from engram import Config, MemorySettingsUpdate, open_engine
from engram.adapters.libsql import vector_rows
from engram.adapters.sealing import new_key
from engram.domain.models import MemoryImport, RetrievalRequest
from shared.devtools.sqld import SqldServer, sqld_binary

pytestmark = pytest.mark.skipif(sqld_binary() is None, reason="sqld is not installed")


@pytest.fixture
def small_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SQLD_MAX_RESPONSE_SIZE", "64KB")
    with SqldServer(tmp_path) as server:
        yield server


def fill(config: Config) -> None:
    engine = open_engine(config, jobs="manual")
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    items = [
        MemoryImport(api_key_id="k1", key=f"note-{n}", content=f"note {n} about gardening")
        for n in range(199)
    ]
    items.append(MemoryImport(api_key_id="k1", key="cello", content="I play the cello"))
    engine.memories.upsert_many(items)
    while engine.vectors.reindex(max_seconds=30).pending:
        pass
    engine.close()


def ask(config: Config):
    engine = open_engine(config, jobs="manual")  # a cold process: the whole key to load
    try:
        request = RetrievalRequest(query="which instrument do I play", strategy="semantic")
        return engine.retrieval.preview("k1", request)
    finally:
        engine.close()


def test_a_key_larger_than_one_response_is_read_in_pages(small_server, monkeypatch):
    config = Config(db_url=small_server.url, secrets_key=SecretStr(new_key()))
    fill(config)
    monkeypatch.setattr(vector_rows, "PAGE_BYTES", 16 * 1024)
    found = ask(config)
    assert not found.resolution.fallback, found.resolution.reason
    assert found.resolution.embedding_source == "static"
    assert found.results[0].content == "I play the cello"
    # What the pages prevent: one response for the whole key is refused by the server.
    monkeypatch.setattr(vector_rows, "PAGE_BYTES", 64 * 1024 * 1024)
    unpaged = ask(config)
    assert unpaged.resolution.fallback
