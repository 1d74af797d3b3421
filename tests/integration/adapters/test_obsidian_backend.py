"""The Obsidian backend against a stand-in of the Local REST API plugin on 127.0.0.1,
built from the plugin's public OpenAPI document (tests/support/backend_servers.py):
notes with front matter under a folder, the JsonLogic search, auth, failures,
tenant isolation."""

from __future__ import annotations

import time

import pytest
import yaml

from engram.adapters.backends import ObsidianBackend, build_backend
from engram.adapters.backends.obsidian import note_id
from engram.domain.errors import BackendError
from engram.domain.models import MemoryCreate, MemoryQuery, MemoryUpdate, RetrievalRequest
from engram.domain.models.backends import ObsidianBackendConfig
from tests.support.backend_servers import ObsidianServer

KEY = "obsidian-secret"


@pytest.fixture
def vault():
    with ObsidianServer(KEY) as server:
        yield server


def obsidian(server: ObsidianServer, **config) -> ObsidianBackend:
    raw = {"baseUrl": server.url, "apiKey": KEY, "timeoutMs": 1500, **config}
    return ObsidianBackend("obsidian", ObsidianBackendConfig.model_validate(raw))


@pytest.fixture
def backend(vault):
    backend = obsidian(vault)
    yield backend
    backend.shutdown()


def item(owner="key_a", content="I prefer dark roast coffee", key="pref:coffee", **extra):
    return MemoryCreate(api_key_id=owner, content=content, key=key, **extra)


def test_a_memory_is_a_markdown_note_with_front_matter_under_the_folder(vault, backend):
    memory = backend.create(item(session_id="s1", metadata={"category": "preference"})).memory
    path = f"Engram/{memory.id}.md"
    text = vault.vault[path]
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["apiKeyId"] == "key_a" and front["key"] == "pref:coffee"
    assert front["sessionId"] == "s1" and front["metadata"] == {"category": "preference"}
    assert front["tags"] == ["engram"]
    assert text.endswith("---\nI prefer dark roast coffee\n")
    put = vault.requests[-1]
    assert (put["method"], put["headers"]["Content-Type"]) == ("PUT", "text/markdown")


def test_the_same_owner_and_key_replace_their_note(vault, backend):
    first = backend.create(item(content="I prefer tea"))
    second = backend.create(item(content="I prefer coffee"))
    assert first.created and not second.created and second.content_changed
    assert first.memory.id == second.memory.id == note_id("key_a", "pref:coffee")
    assert second.memory.created_at == first.memory.created_at
    assert len(vault.vault) == 1


def test_a_custom_folder(vault):
    memory = obsidian(vault, folder="Memory/Engram").create(item()).memory
    assert f"Memory/Engram/{memory.id}.md" in vault.vault


def test_get_reads_the_note_json_view(vault, backend):
    memory = backend.create(item()).memory
    found = backend.get(memory.id, "key_a")
    assert found is not None and found.content == "I prefer dark roast coffee"
    assert vault.requests[-1]["headers"]["Accept"] == "application/vnd.olrapi.note+json"


def test_get_of_a_missing_note_is_none(backend):
    assert backend.get("obs-missing", "key_a") is None


def test_update_rewrites_the_note(vault, backend):
    memory = backend.create(item()).memory
    updated = backend.update(memory.id, "key_a", MemoryUpdate(content="I prefer espresso"))
    assert updated is not None and "I prefer espresso" in vault.vault[f"Engram/{memory.id}.md"]


def test_delete_removes_the_note(vault, backend):
    memory = backend.create(item()).memory
    assert backend.delete(memory.id, "key_a") and vault.vault == {}
    assert backend.delete(memory.id, "key_a") is False


def test_list_asks_the_search_endpoint_for_the_owner_s_notes(vault, backend):
    backend.create(item(key="a", content="one"))
    backend.create(item(key="b", content="two", type="episodic"))
    backend.create(item(owner="key_b", key="c", content="three"))
    page = backend.list_page(MemoryQuery(api_key_id="key_a"))
    assert page.total == 2 and page.by_type == {"factual": 1, "episodic": 1}
    sent = vault.requests[-1]
    assert (sent["method"], sent["path"]) == ("POST", "/search/")
    assert sent["headers"]["Content-Type"] == "application/vnd.olrapi.jsonlogic+json"
    assert '"frontmatter.apiKeyId"' in sent["body"] and '"key_a"' in sent["body"]


def test_search_ranks_the_owner_s_notes_by_the_question(vault, backend):
    backend.create(item(key="a", content="I prefer dark roast coffee"))
    backend.create(item(key="b", content="I use Postgres for this project"))
    backend.create(item(key="c", content="My dog is called Rex"))
    result = backend.search(
        "key_a", RetrievalRequest(query="Which database for the project?"), read_only=True
    )
    assert [r.content for r in result.results] == ["I use Postgres for this project"]
    assert result.results[0].tier == "backend" and result.resolution.backend == "obsidian"


def test_notes_outside_the_folder_are_not_memories(vault, backend):
    backend.create(item())
    vault.vault["Journal/coffee.md"] = "---\napiKeyId: key_a\nengramId: x\n---\ncoffee\n"
    result = backend.search("key_a", RetrievalRequest(query="coffee"), read_only=True)
    assert len(result.results) == 1


def test_health_needs_an_authenticated_status(vault, backend):
    assert backend.health().working
    wrong = obsidian(vault, apiKey="wrong")
    report = wrong.health()
    assert not report.working and "refused the API key" in report.error
    assert "wrong" not in report.error


def test_a_wrong_key_is_a_401_backend_error(vault):
    with pytest.raises(BackendError, match="401"):
        obsidian(vault, apiKey="wrong").get("obs-x", "key_a")


def test_the_server_down_is_a_backend_error(vault, backend):
    vault.stop()
    with pytest.raises(BackendError, match="unreachable"):
        backend.search("key_a", RetrievalRequest(query="coffee"), read_only=True)


def test_a_slow_vault_times_out(vault):
    vault.mode, vault.hang_s = "hang", 2.0
    started = time.perf_counter()
    with pytest.raises(BackendError, match="did not answer"):
        obsidian(vault, timeoutMs=300).search("key_a", RetrievalRequest(query="x"), read_only=True)
    assert time.perf_counter() - started < 1.5


def test_malformed_json_is_a_backend_error(vault, backend):
    vault.mode = "garbage"
    with pytest.raises(BackendError, match="malformed JSON"):
        backend.search("key_a", RetrievalRequest(query="x"), read_only=True)


def test_the_factory_builds_the_preset_by_name(vault):
    built = build_backend("obsidian", {"baseUrl": vault.url, "apiKey": KEY})
    assert isinstance(built, ObsidianBackend)


def test_no_key_no_backend():
    with pytest.raises(BackendError, match="apiKey"):
        ObsidianBackend("obsidian", ObsidianBackendConfig())


# -- tenant isolation ----------------------------------------------------------------------


def test_another_owner_s_note_is_never_read_changed_or_deleted(vault, backend):
    theirs = backend.create(item(owner="key_b", content="coffee secret of b")).memory
    assert backend.get(theirs.id, "key_a") is None
    assert backend.update(theirs.id, "key_a", MemoryUpdate(content="mine")) is None
    assert backend.delete(theirs.id, "key_a") is False
    assert "coffee secret of b" in vault.vault[f"Engram/{theirs.id}.md"]


def test_search_and_list_never_return_another_owner_s_note(vault, backend):
    backend.create(item(owner="key_a", key="a", content="coffee of a"))
    backend.create(item(owner="key_b", key="b", content="coffee of b"))
    result = backend.search("key_a", RetrievalRequest(query="coffee"), read_only=True)
    assert [r.api_key_id for r in result.results] == ["key_a"]
    assert {m.api_key_id for m in backend.list_page(MemoryQuery(api_key_id="key_b")).data} == {
        "key_b"
    }


def test_a_note_whose_front_matter_lies_about_its_id_is_not_returned(vault, backend):
    memory = backend.create(item()).memory
    path = f"Engram/{memory.id}.md"
    vault.vault[path] = vault.vault[path].replace(memory.id, "obs-other")
    assert backend.get(memory.id, "key_a") is None
