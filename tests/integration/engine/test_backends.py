"""The backend manager's routing (SPEC section 8): create and list to the primary only,
get along the chain on "none", update and delete followed by the fallbacks in the
background (failures logged, never raised), search along the chain on error; backends
rebuilt when their configuration changes. Real servers on 127.0.0.1 behind real adapters.
"""

from __future__ import annotations

import logging
import time

import pytest

from engram import MemorySettingsUpdate
from engram.domain.errors import BackendError, InvalidInputError
from engram.domain.models import MemoryCreate, MemoryQuery, MemoryUpdate, RetrievalRequest
from tests.support.backend_servers import MemoryApi, ObsidianServer

KEY = "generic-secret"


@pytest.fixture
def primary():
    with MemoryApi(KEY) as server:
        yield server


@pytest.fixture
def second():
    with ObsidianServer("vault-key") as server:
        yield server


@pytest.fixture
def routed(engine, primary, second):
    """Primary: a generic API; fallbacks: Obsidian, then libSQL."""
    engine.settings.update(
        MemorySettingsUpdate(
            primary_backend="http",
            fallback_backends=["obsidian", "libsql"],
            backend_configs={
                "http": {"baseUrl": primary.url, "apiKey": KEY, "timeoutMs": 800},
                "obsidian": {"baseUrl": second.url, "apiKey": "vault-key", "timeoutMs": 800},
            },
        )
    )
    return engine.backends


def memory(owner="key_a", content="I prefer dark roast coffee", key="coffee"):
    return MemoryCreate(api_key_id=owner, content=content, key=key)


def test_create_and_list_go_to_the_primary_only(routed, engine, primary, second):
    created = routed.create(memory())
    assert created.created and list(primary.records) == [created.memory.id]
    assert second.vault == {}
    assert engine.memories.list_page(MemoryQuery(api_key_id="key_a")).total == 0
    assert [m.id for m in routed.list_page(MemoryQuery(api_key_id="key_a")).data] == [
        created.memory.id
    ]


def test_a_create_the_primary_refuses_is_raised_not_sent_elsewhere(routed, engine, primary, second):
    primary.mode = "fail"
    with pytest.raises(BackendError):
        routed.create(memory())
    assert second.vault == {} and engine.memories.list_page(MemoryQuery()).total == 0


def test_get_falls_back_along_the_chain_when_the_primary_has_nothing(routed, engine):
    local = engine.memories.create(memory(content="kept in libSQL"))
    assert routed.get(local.id, "key_a").content == "kept in libSQL"
    assert routed.get("missing-everywhere", "key_a") is None


def test_get_when_the_primary_fails_asks_the_rest_but_never_says_missing(routed, engine, primary):
    local = engine.memories.create(memory(content="kept in libSQL"))
    primary.mode = "fail"
    assert routed.get(local.id, "key_a").content == "kept in libSQL"
    with pytest.raises(BackendError, match="http failed"):
        routed.get("maybe-in-the-primary", "key_a")


def test_get_never_crosses_owners_on_any_backend(routed, engine):
    theirs = engine.memories.create(memory(owner="key_b", content="b's"))
    assert routed.get(theirs.id, "key_a") is None


def test_update_and_delete_answer_from_the_primary_and_follow_in_the_background(
    routed, engine, primary
):
    created = routed.create(memory()).memory
    updated = routed.update(created.id, MemoryUpdate(content="I prefer espresso"), "key_a")
    assert updated.content == "I prefer espresso"
    assert primary.records[created.id]["content"] == "I prefer espresso"
    # A memory only libSQL holds: the primary answers "none", libSQL follows in the background.
    local = engine.memories.create(memory(content="kept in libSQL", key="local"))
    assert routed.update(local.id, MemoryUpdate(content="changed via chain"), "key_a") is None
    routed.flush()
    assert engine.memories.get(local.id).content == "changed via chain"
    assert routed.delete(local.id, "key_a") is False
    routed.flush()
    assert engine.memories.get(local.id) is None


def test_a_slow_fallback_does_not_hold_the_caller(routed, primary, second):
    created = routed.create(memory()).memory
    second.mode, second.hang_s = "hang", 1.5
    started = time.perf_counter()
    assert routed.delete(created.id, "key_a") is True
    assert time.perf_counter() - started < 0.7
    routed.flush()


def test_a_failing_fallback_is_logged_never_raised(routed, second, caplog):
    caplog.set_level(logging.WARNING)
    created = routed.create(memory()).memory
    second.mode = "fail"
    assert routed.update(created.id, MemoryUpdate(content="new"), "key_a").content == "new"
    routed.flush()
    assert "fallback backend obsidian did not update" in caplog.text


def test_search_falls_back_on_error_and_says_why(routed, engine, primary):
    engine.memories.create(memory(content="I use Postgres for billing", key="db"))
    routed.create(memory(content="I use MySQL for billing", key="db"))
    answer = routed.preview("key_a", RetrievalRequest(query="billing database"))
    assert answer.resolution.backend == "http"
    assert [r.content for r in answer.results] == ["I use MySQL for billing"]

    primary.mode = "garbage"
    answer = routed.preview("key_a", RetrievalRequest(query="billing database"))
    assert answer.resolution.backend == "obsidian"  # nothing there, but it answered
    assert answer.results == []
    assert [f.backend for f in answer.resolution.backend_failures] == ["http"]


def test_search_skips_every_failing_backend_to_libsql(routed, engine, primary, second):
    engine.memories.create(memory(content="I use Postgres for billing", key="db"))
    primary.stop()
    second.mode = "fail"
    answer = routed.preview("key_a", RetrievalRequest(query="billing"))
    assert answer.resolution.backend == "libsql" and answer.resolution.fallback
    assert [f.backend for f in answer.resolution.backend_failures] == ["http", "obsidian"]
    assert [r.content for r in answer.results] == ["I use Postgres for billing"]
    failing = {f.component for f in engine.status.failures.current()}
    assert {"backend http", "backend obsidian"} <= failing


def test_search_fits_a_remote_answer_to_the_budget(routed):
    for index in range(5):
        routed.create(memory(content=f"coffee note number {index} " + "x" * 80, key=f"k{index}"))
    answer = routed.preview("key_a", RetrievalRequest(query="coffee", max_tokens=60, limit=3))
    assert len(answer.results) == 2 and answer.tokens_used <= 60


def test_a_remote_answer_longer_than_the_budget_still_gives_its_best_memory(routed):
    # The recall tier's rule, whichever backend ranked: one memory over budget beats none.
    routed.create(memory(content="coffee " + "long note " * 60, key="long"))
    answer = routed.preview("key_a", RetrievalRequest(query="coffee", max_tokens=20, limit=3))
    assert [r.key for r in answer.results] == ["long"]
    assert answer.tokens_used == answer.results[0].tokens > 20


def test_a_bad_request_is_the_caller_s_error_not_a_backend_failure(routed):
    with pytest.raises(InvalidInputError) as caught:
        routed.preview("key_a", RetrievalRequest(query="x", scope="session"))
    assert caught.value.field == "sessionId"


def test_a_changed_config_rebuilds_the_backend(routed, engine, primary):
    first = routed.backend("http")
    assert routed.backend("http") is first
    engine.settings.update(
        MemorySettingsUpdate(
            backend_configs={
                "http": {"baseUrl": primary.url, "apiKey": KEY, "timeoutMs": 900},
                "obsidian": {"baseUrl": primary.url, "apiKey": "vault-key"},
            }
        )
    )
    assert routed.backend("http") is not first


def test_learning_with_a_remote_primary_happens_once(routed, engine, primary):
    from engram.domain.models import ExtractionJob, JobTurn

    job = ExtractionJob(
        api_key_id="key_a",
        turns=[JobTurn(role="user", text="I prefer TypeScript.")],
        request_id="chat-1",
    )
    first = engine.jobs.handle(job)
    again = engine.jobs.handle(job)
    assert len(first.created) == 1 and again.duplicate
    assert len(primary.records) == 1
    assert "TypeScript" in next(iter(primary.records.values()))["content"]
