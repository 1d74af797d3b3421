"""The Notion backend against a stand-in of Notion's public API on 127.0.0.1, built from
its documentation (tests/support/backend_servers.py): pages with properties in a
database, queries with the owner as a filter, the Notion-Version header, failures,
tenant isolation."""

from __future__ import annotations

import json
import time

import pytest

from engram.adapters.backends import NotionBackend, build_backend
from engram.domain.errors import BackendError
from engram.domain.models import MemoryCreate, MemoryQuery, MemoryUpdate, RetrievalRequest
from engram.domain.models.backends import NotionBackendConfig
from tests.support.backend_servers import NotionServer

KEY = "secret_notion_integration"


@pytest.fixture
def notion():
    with NotionServer(KEY) as server:
        yield server


def backend_for(server: NotionServer, **config) -> NotionBackend:
    raw = {
        "baseUrl": server.url + "/v1",
        "apiKey": KEY,
        "databaseId": server.database_id,
        "timeoutMs": 1500,
        **config,
    }
    return NotionBackend("notion", NotionBackendConfig.model_validate(raw))


@pytest.fixture
def backend(notion):
    backend = backend_for(notion)
    yield backend
    backend.shutdown()


def item(owner="key_a", content="I prefer dark roast coffee", key="pref:coffee", **extra):
    return MemoryCreate(api_key_id=owner, content=content, key=key, **extra)


def test_a_memory_is_a_page_of_the_database_with_properties(notion, backend):
    memory = backend.create(item(session_id="s1", metadata={"category": "preference"})).memory
    sent = notion.requests[-1]
    assert (sent["method"], sent["path"]) == ("POST", "/v1/pages")
    assert sent["headers"]["Notion-Version"] == "2022-06-28"
    assert sent["headers"]["Authorization"] == f"Bearer {KEY}"
    body = json.loads(sent["body"])
    assert body["parent"] == {"database_id": notion.database_id}
    props = body["properties"]
    assert props["Name"]["title"][0]["text"]["content"] == "pref:coffee"
    assert props["API Key"]["rich_text"][0]["text"]["content"] == "key_a"
    assert memory.content == "I prefer dark roast coffee" and memory.session_id == "s1"
    assert memory.metadata == {"category": "preference"}


def test_long_content_is_split_into_2000_character_pieces(notion, backend):
    text = "coffee " * 1000  # 7,000 characters
    memory = backend.create(item(content=text.strip())).memory
    assert memory.content == text.strip()
    pieces = json.loads(notion.requests[-1]["body"])["properties"]["Content"]["rich_text"]
    assert [len(p["text"]["content"]) for p in pieces] == [2000, 2000, 2000, 999]


def test_the_same_owner_and_key_update_their_page(notion, backend):
    first = backend.create(item(content="I prefer tea"))
    second = backend.create(item(content="I prefer coffee"))
    assert first.created and not second.created and second.content_changed
    assert first.memory.id == second.memory.id and len(notion.pages) == 1
    assert notion.requests[-1]["method"] == "PATCH"


def test_get_update_delete(notion, backend):
    memory = backend.create(item()).memory
    assert backend.get(memory.id, "key_a").content == memory.content
    updated = backend.update(memory.id, "key_a", MemoryUpdate(content="I prefer espresso"))
    assert updated.content == "I prefer espresso"
    assert backend.delete(memory.id, "key_a") is True
    assert json.loads(notion.requests[-1]["body"]) == {"archived": True}
    assert backend.get(memory.id, "key_a") is None  # archived pages are gone
    assert backend.delete(memory.id, "key_a") is False


def test_a_missing_or_malformed_id_is_none(notion, backend):
    assert backend.get("00000000-0000-0000-0000-000000000000", "key_a") is None
    before = len(notion.requests)
    assert backend.get("not-a-notion-id", "key_a") is None
    assert len(notion.requests) == before  # never asked


def test_list_queries_the_database_with_the_owner_as_a_filter(notion, backend):
    backend.create(item(key="a", content="one"))
    backend.create(item(key="b", content="two", type="episodic"))
    backend.create(item(owner="key_b", key="c", content="three"))
    page = backend.list_page(MemoryQuery(api_key_id="key_a", limit=1))
    assert page.total == 2 and [m.content for m in page.data] == ["two"]  # newest first
    sent = notion.requests[-1]
    assert sent["path"] == f"/v1/databases/{notion.database_id}/query"
    conditions = json.loads(sent["body"])["filter"]["and"]
    assert {"property": "API Key", "rich_text": {"equals": "key_a"}} in conditions


def test_list_follows_the_cursor_across_pages(notion):
    notion.page_size = 2
    backend = backend_for(notion)
    for index in range(5):
        backend.create(item(key=f"k{index}", content=f"note {index}"))
    assert backend.list_page(MemoryQuery(api_key_id="key_a")).total == 5


def test_search_asks_for_the_question_s_words_and_ranks_the_pages(notion, backend):
    backend.create(item(key="a", content="I prefer dark roast coffee"))
    backend.create(item(key="b", content="I use Postgres for this project"))
    result = backend.search(
        "key_a", RetrievalRequest(query="Which database for the project?"), read_only=True
    )
    assert [r.content for r in result.results] == ["I use Postgres for this project"]
    assert result.results[0].tier == "backend" and result.resolution.backend == "notion"
    words = json.loads(notion.requests[-1]["body"])["filter"]["and"][-1]["or"]
    assert {"property": "Content", "rich_text": {"contains": "database"}} in words


def test_custom_property_names(notion):
    notion.schema = {
        "Title": "title",
        "Text": "rich_text",
        "Owner": "rich_text",
        "Kind": "rich_text",
        "Sess": "rich_text",
        "Meta": "rich_text",
    }
    backend = backend_for(
        notion,
        titleProperty="Title",
        contentProperty="Text",
        ownerProperty="Owner",
        typeProperty="Kind",
        sessionProperty="Sess",
        metadataProperty="Meta",
    )
    backend.create(item())
    assert backend.list_page(MemoryQuery(api_key_id="key_a")).total == 1


def test_a_property_the_database_lacks_is_a_backend_error(notion):
    notion.schema.pop("Session")
    with pytest.raises(BackendError, match="400"):
        backend_for(notion).create(item())


def test_health_reads_the_database(notion, backend):
    assert backend.health().working
    assert notion.requests[-1]["path"] == f"/v1/databases/{notion.database_id}"
    report = backend_for(notion, databaseId="0" * 32).health()
    assert not report.working and "404" in report.error


def test_a_wrong_token_is_refused_and_never_quoted(notion):
    report = backend_for(notion, apiKey="secret_wrong_token").health()
    assert not report.working and "401" in report.error and "secret_wrong" not in report.error


def test_the_version_header_is_the_configured_one(notion):
    report = backend_for(notion, notionVersion="2021-05-13").health()
    assert not report.working and "400" in report.error


@pytest.mark.parametrize(("mode", "message"), [("fail", "500"), ("garbage", "malformed JSON")])
def test_failures_are_backend_errors(notion, backend, mode, message):
    notion.mode = mode
    with pytest.raises(BackendError, match=message):
        backend.search("key_a", RetrievalRequest(query="coffee"), read_only=True)


def test_a_slow_notion_times_out(notion):
    notion.mode, notion.hang_s = "hang", 2.0
    started = time.perf_counter()
    with pytest.raises(BackendError, match="did not answer"):
        backend_for(notion, timeoutMs=300).search(
            "key_a", RetrievalRequest(query="x"), read_only=True
        )
    assert time.perf_counter() - started < 1.5


def test_the_factory_builds_the_preset_by_name(notion):
    built = build_backend(
        "notion", {"baseUrl": notion.url + "/v1", "apiKey": KEY, "databaseId": notion.database_id}
    )
    assert isinstance(built, NotionBackend)


# -- tenant isolation --------------------------------------------------------------------------


def test_another_owner_s_page_is_never_read_changed_or_deleted(notion, backend):
    theirs = backend.create(item(owner="key_b", content="coffee secret of b")).memory
    assert backend.get(theirs.id, "key_a") is None
    assert backend.update(theirs.id, "key_a", MemoryUpdate(content="mine")) is None
    assert backend.delete(theirs.id, "key_a") is False
    assert not notion.pages[theirs.id]["archived"]


def test_search_and_list_never_return_another_owner_s_page(notion, backend):
    backend.create(item(owner="key_a", key="a", content="coffee of a"))
    backend.create(item(owner="key_b", key="b", content="coffee of b"))
    result = backend.search("key_a", RetrievalRequest(query="coffee"), read_only=True)
    assert [r.api_key_id for r in result.results] == ["key_a"]
    listed = backend.list_page(MemoryQuery(api_key_id="key_b")).data
    assert {m.api_key_id for m in listed} == {"key_b"}


def test_a_page_of_another_database_is_never_a_memory(notion, backend):
    memory = backend.create(item()).memory
    notion.pages[memory.id]["parent"]["database_id"] = "f" * 32
    assert backend.get(memory.id, "key_a") is None
