"""The generic HTTP memory backend against a real JSON memory API on 127.0.0.1
(tests/support/backend_servers.py): templates, parameter and field mappings, auth,
timeouts, 4xx/5xx, malformed JSON, slow servers, tenant isolation, secrets.

As broad as the reference's generic-backend suite (constructor, health, initialize,
create, get, update, delete, list, search, auth headers, factory) and beyond it.
"""

from __future__ import annotations

import logging
import time

import pytest

from engram.adapters.backends import HttpBackend, build_backend
from engram.domain.errors import BackendError, InvalidInputError
from engram.domain.models import MemoryCreate, MemoryQuery, MemoryUpdate, RetrievalRequest
from engram.domain.models.backends import HttpBackendConfig, parse_backend_config
from tests.support.backend_servers import MemoryApi

KEY = "generic-secret"


@pytest.fixture
def api():
    with MemoryApi(KEY) as server:
        yield server


def backend_for(server: MemoryApi, **config) -> HttpBackend:
    raw = {"baseUrl": server.url, "apiKey": KEY, "timeoutMs": 1500, **config}
    return HttpBackend("brain", HttpBackendConfig.model_validate(raw))


@pytest.fixture
def backend(api):
    backend = backend_for(api)
    yield backend
    backend.shutdown()


def item(owner="key_a", content="I prefer dark roast coffee", key=None, **extra):
    return MemoryCreate(api_key_id=owner, content=content, key=key or content[:20], **extra)


# -- constructor and factory ---------------------------------------------------------------


def test_a_backend_has_its_name_and_kind(backend):
    assert (backend.name, backend.kind) == ("brain", "http")


def test_the_config_trims_a_trailing_slash_and_keeps_the_defaults(api):
    config = HttpBackendConfig.model_validate({"baseUrl": api.url + "/"})
    assert config.base_url == api.url
    assert config.endpoints.get == "/memories/{id}" and config.timeout_ms == 5000


def test_the_factory_builds_a_custom_name_with_a_type(api):
    built = build_backend("brain", {"type": "http", "baseUrl": api.url})
    assert isinstance(built, HttpBackend) and built.name == "brain"


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({}, "backendConfigs.http.baseUrl"),
        ({"baseUrl": "ftp://example.com"}, "backendConfigs.http.baseUrl"),
        ({"baseUrl": "http://user:pw@example.com"}, "backendConfigs.http.baseUrl"),
        ({"baseUrl": "http://169.254.169.254/latest"}, "backendConfigs.http.baseUrl"),
        ({"baseUrl": "http://[::ffff:169.254.169.254]/"}, "backendConfigs.http.baseUrl"),
        ({"baseUrl": "http://metadata.google.internal"}, "backendConfigs.http.baseUrl"),
        ({"baseUrl": "http://x.test", "timeoutMs": 5}, "backendConfigs.http.timeoutMs"),
        (
            {"baseUrl": "http://x.test", "headers": {"X-A": "a\r\nInjected: 1"}},
            "backendConfigs.http.headers",
        ),
        (
            {"baseUrl": "http://x.test", "endpoints": {"get": "http://evil/{id}"}},
            "backendConfigs.http.endpoints.get",
        ),
        ({"baseUrl": "http://x.test", "surprise": 1}, "backendConfigs.http.surprise"),
    ],
)
def test_a_bad_config_is_refused_naming_its_field(config, field):
    with pytest.raises(InvalidInputError) as caught:
        parse_backend_config("http", config)
    assert caught.value.field == field


def test_a_refused_config_never_quotes_its_secret():
    with pytest.raises(InvalidInputError) as caught:
        parse_backend_config("http", {"baseUrl": "http://x.test", "apiKey": 12345678901})
    assert "12345678901" not in caught.value.message


# -- health and initialize -----------------------------------------------------------------


def test_health_reports_a_working_backend_with_its_latency(backend):
    report = backend.health()
    assert report.working and report.error is None and report.latency_ms > 0


def test_health_reports_a_500(api, backend):
    api.mode = "fail"
    report = backend.health()
    assert not report.working and "500" in report.error


def test_health_reports_a_network_error(api, backend):
    api.stop()
    report = backend.health()
    assert not report.working and "unreachable" in report.error


def test_health_reports_a_slow_backend_as_a_timeout(api):
    api.mode, api.hang_s = "hang", 2.0
    slow = backend_for(api, timeoutMs=200)
    started = time.perf_counter()
    report = slow.health()
    assert not report.working and "did not answer" in report.error
    assert time.perf_counter() - started < 1.5


def test_health_asks_the_configured_endpoint(api):
    backend_for(api, endpoints={"health": "/api/health"}).health()
    assert api.requests[-1]["path"] == "/api/health"


def test_initialize_and_shutdown_need_no_request(api):
    backend = backend_for(api)
    backend.initialize()
    backend.shutdown()
    assert api.requests == []


# -- create --------------------------------------------------------------------------------


def test_create_posts_the_memory_with_its_owner(api, backend):
    outcome = backend.create(item(metadata={"category": "preference"}))
    assert outcome.created and outcome.memory.api_key_id == "key_a"
    sent = api.requests[-1]
    assert (sent["method"], sent["path"]) == ("POST", "/memories")
    assert api.records[outcome.memory.id]["metadata"] == {"category": "preference"}


def test_create_again_with_the_same_key_is_an_update(api, backend):
    backend.create(item(content="I prefer tea", key="drink"))
    again = backend.create(item(content="I prefer coffee", key="drink"))
    assert not again.created and len(api.records) == 1


def test_create_uses_a_custom_endpoint(api):
    api.routes["collection"] = __import__("re").compile("^/v2/notes$")
    backend = backend_for(api, endpoints={"create": "/v2/notes"})
    backend.create(item())
    assert api.requests[-1]["path"] == "/v2/notes"


def test_create_refuses_an_answer_without_the_stored_memory(api, backend):
    api.mode = "garbage"
    with pytest.raises(BackendError, match="malformed JSON"):
        backend.create(item())


# -- get -----------------------------------------------------------------------------------


def test_get_reads_the_owner_s_memory(backend):
    created = backend.create(item()).memory
    found = backend.get(created.id, "key_a")
    assert found is not None and found.content == created.content


def test_get_of_a_missing_memory_is_none(backend):
    assert backend.get("nope", "key_a") is None


@pytest.mark.parametrize("status_mode", ["fail", "refuse"])
def test_get_raises_on_any_other_error(api, backend, status_mode):
    api.mode = status_mode
    with pytest.raises(BackendError, match=r"answered get with (500|401)"):
        backend.get("x", "key_a")


def test_get_uses_the_path_parameter_name(api):
    with MemoryApi(KEY, routes={"item": "/notes/{noteId}/body"}, id_param="noteId") as custom:
        backend = backend_for(
            custom, endpoints={"get": "/notes/{noteId}/body"}, pathParams={"id": "noteId"}
        )
        custom.records["n/1"] = {"id": "n/1", "apiKeyId": "key_a", "content": "x", "key": "k"}
        assert backend.get("n/1", "key_a") is not None
        assert custom.requests[-1]["raw_path"] == "/notes/n%2F1/body"  # the id quoted


# -- update and delete ---------------------------------------------------------------------


def test_update_changes_the_memory(api, backend):
    created = backend.create(item()).memory
    updated = backend.update(created.id, "key_a", MemoryUpdate(content="I prefer green tea"))
    assert updated is not None and updated.content == "I prefer green tea"
    assert api.requests[-1]["method"] == "PUT"


def test_update_of_a_missing_memory_is_none(backend):
    assert backend.update("nope", "key_a", MemoryUpdate(content="x")) is None


def test_update_can_use_patch(api):
    backend = backend_for(api, updateMethod="PATCH")
    created = backend.create(item()).memory
    backend.update(created.id, "key_a", MemoryUpdate(content="changed"))
    assert api.requests[-1]["method"] == "PATCH"


def test_delete_removes_the_memory(api, backend):
    created = backend.create(item()).memory
    assert backend.delete(created.id, "key_a") is True
    assert api.records == {}


def test_delete_of_a_missing_memory_is_false(backend):
    assert backend.delete("nope", "key_a") is False


# -- list ----------------------------------------------------------------------------------


def test_list_sends_owner_paging_and_filters(api, backend):
    backend.create(item())
    page = backend.list_page(MemoryQuery(api_key_id="key_a", limit=5, offset=0, type="factual"))
    assert page.total == 1 and page.data[0].api_key_id == "key_a"
    query = api.requests[-1]["query"]
    assert query == {"apiKeyId": ["key_a"], "limit": ["5"], "offset": ["0"], "type": ["factual"]}


def test_list_uses_custom_parameter_names(api):
    with MemoryApi(
        KEY, params={"apiKeyId": "owner", "limit": "per_page", "offset": "skip"}
    ) as other:
        backend = backend_for(
            other, queryParams={"apiKeyId": "owner", "limit": "per_page", "offset": "skip"}
        )
        backend.create(item())
        assert backend.list_page(MemoryQuery(api_key_id="key_a")).total == 1
        assert set(other.requests[-1]["query"]) == {"owner", "per_page", "skip"}


# -- search --------------------------------------------------------------------------------


def test_search_sends_the_query_owner_and_limit(api, backend):
    backend.create(item())
    result = backend.search("key_a", RetrievalRequest(query="coffee", limit=3), read_only=True)
    assert [r.content for r in result.results] == ["I prefer dark roast coffee"]
    assert result.results[0].tier == "backend" and result.resolution.backend == "brain"
    query = api.requests[-1]["query"]
    assert query["query"] == ["coffee"] and query["apiKeyId"] == ["key_a"]
    assert query["limit"] == ["3"]


def test_search_uses_a_custom_endpoint(api):
    api.routes["search"] = __import__("re").compile("^/api/memory/search$")
    backend = backend_for(api, endpoints={"search": "/api/memory/search"})
    backend.search("key_a", RetrievalRequest(query="coffee"), read_only=True)
    assert api.requests[-1]["path"] == "/api/memory/search"


def test_search_serialises_the_options(api, backend):
    request = RetrievalRequest(
        query="coffee", strategy="semantic", max_tokens=300, scope="session", session_id="s1"
    )
    backend.search("key_a", request, read_only=True)
    query = api.requests[-1]["query"]
    assert query["strategy"] == ["semantic"] and query["maxTokens"] == ["300"]
    assert query["sessionId"] == ["s1"]


def test_search_ranks_by_the_remote_score(api, backend):
    backend.create(item(content="coffee and tea", key="a"))
    backend.create(item(content="coffee", key="b"))
    result = backend.search("key_a", RetrievalRequest(query="coffee tea"), read_only=True)
    assert [r.content for r in result.results] == ["coffee and tea", "coffee"]
    assert result.results[0].score == 1.0


def test_search_without_scores_keeps_the_api_s_order(api):
    with MemoryApi(KEY, fields={"score": "unused.score"}) as other:
        backend = backend_for(other, fields={"score": "relevance"})
        backend.create(item(content="coffee one", key="a"))
        backend.create(item(content="coffee two", key="b"))
        result = backend.search("key_a", RetrievalRequest(query="coffee"), read_only=True)
        assert [r.score for r in result.results] == [1.0, 0.5]


# -- response field mapping ----------------------------------------------------------------


MAPPED = {
    "id": "uid",
    "content": "body.text",
    "key": "body.slug",
    "apiKeyId": "owner",
    "score": "relevance",
    "createdAt": "created",
}


def test_fields_are_read_and_written_where_the_mapping_says(tmp_path):
    with MemoryApi(KEY, fields=MAPPED, items="result.items") as other:
        backend = backend_for(
            other,
            fields={
                "items": "result.items",
                "id": "uid",
                "content": "body.text",
                "key": "body.slug",
                "owner": "owner",
                "score": "relevance",
                "createdAt": "created",
            },
        )
        created = backend.create(item(content="I ride a bike", key="bike")).memory
        assert other.records[created.id]["content"] == "I ride a bike"
        assert backend.get(created.id, "key_a").key == "bike"
        result = backend.search("key_a", RetrievalRequest(query="bike"), read_only=True)
        assert [r.content for r in result.results] == ["I ride a bike"]
        assert backend.list_page(MemoryQuery(api_key_id="key_a")).total == 1


def test_a_list_that_is_the_whole_body(tmp_path):
    with MemoryApi(KEY, items="") as other:
        backend = backend_for(other, fields={"items": ""})
        backend.create(item())
        assert backend.list_page(MemoryQuery(api_key_id="key_a")).data


def test_an_answer_without_the_list_is_an_error(api):
    backend = backend_for(api, fields={"items": "nowhere"})
    with pytest.raises(BackendError, match="without a list"):
        backend.search("key_a", RetrievalRequest(query="x"), read_only=True)


# -- failures ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "message"),
    [("fail", "answered search with 500"), ("garbage", "malformed JSON"), ("refuse", "401")],
)
def test_search_failures_are_backend_errors(api, backend, mode, message):
    api.mode = mode
    with pytest.raises(BackendError, match=message):
        backend.search("key_a", RetrievalRequest(query="x"), read_only=True)


def test_a_slow_server_times_out_within_the_configured_time(api):
    api.mode, api.hang_s = "hang", 2.0
    backend = backend_for(api, timeoutMs=300)
    started = time.perf_counter()
    with pytest.raises(BackendError, match=r"did not answer search within 0\.3 s"):
        backend.search("key_a", RetrievalRequest(query="x"), read_only=True)
    assert time.perf_counter() - started < 1.5


def test_a_4xx_on_create_is_a_backend_error(api, backend):
    with pytest.raises(BackendError, match="400"):
        backend_for(api, fields={"content": "nothing.here", "owner": "nobody"}).create(item())


def test_a_redirect_is_not_followed(api):
    backend = backend_for(api, endpoints={"health": "/moved"})
    api.redirect_to = "/health"  # where a followed redirect would find a healthy answer
    report = backend.health()
    assert not report.working and "302" in report.error
    assert [r["path"] for r in api.requests] == ["/moved"]


# -- auth ----------------------------------------------------------------------------------


def test_the_bearer_key_is_sent(api, backend):
    backend.health()
    assert api.requests[-1]["headers"]["Authorization"] == f"Bearer {KEY}"


def test_custom_headers_are_sent_with_the_key(api):
    backend_for(api, headers={"X-Tenant": "acme", "X-Api-Version": "2"}).health()
    headers = api.requests[-1]["headers"]
    assert headers["X-Tenant"] == "acme" and headers["X-Api-Version"] == "2"
    assert headers["Authorization"] == f"Bearer {KEY}"


def test_no_key_means_no_authorization_header(api):
    with MemoryApi(None) as open_api:
        backend = HttpBackend("open", HttpBackendConfig(base_url=open_api.url))
        backend.health()
        assert "Authorization" not in open_api.requests[-1]["headers"]


# -- tenant isolation ----------------------------------------------------------------------


@pytest.fixture
def leaky(api, backend):
    """Two owners' memories on a server that ignores the owner filter."""
    mine = backend.create(item("key_a", "coffee for a", key="a")).memory
    theirs = backend.create(item("key_b", "coffee for b", key="b")).memory
    api.leak = True
    return mine, theirs


def test_search_never_returns_another_owner_s_memory(leaky, backend):
    result = backend.search("key_a", RetrievalRequest(query="coffee"), read_only=True)
    assert [r.api_key_id for r in result.results] == ["key_a"]


def test_list_never_returns_another_owner_s_memory(leaky, backend):
    page = backend.list_page(MemoryQuery(api_key_id="key_a"))
    assert {m.api_key_id for m in page.data} == {"key_a"}


def test_get_update_delete_never_touch_another_owner_s_memory(leaky, api, backend):
    _, theirs = leaky
    assert backend.get(theirs.id, "key_a") is None
    assert backend.update(theirs.id, "key_a", MemoryUpdate(content="mine now")) is None
    assert backend.delete(theirs.id, "key_a") is False
    assert api.records[theirs.id]["content"] == "coffee for b"


def test_a_record_without_an_owner_is_never_returned(api, backend):
    api.records["x"] = {"id": "x", "content": "coffee without owner", "key": "x"}
    api.leak = True
    result = backend.search("key_a", RetrievalRequest(query="coffee"), read_only=True)
    assert result.results == []


def test_each_owner_s_key_reaches_the_server_as_its_own_filter(api, backend):
    backend.search("key_a", RetrievalRequest(query="x"), read_only=True)
    backend.search("key_b", RetrievalRequest(query="x"), read_only=True)
    assert [r["query"]["apiKeyId"] for r in api.requests[-2:]] == [["key_a"], ["key_b"]]


# -- secrets -------------------------------------------------------------------------------


def test_errors_and_logs_never_carry_the_key(api, caplog):
    caplog.set_level(logging.DEBUG)
    backend = backend_for(api, headers={"X-Api-Key": "header-secret"})
    messages = []
    for mode in ("fail", "garbage", "refuse", "hang"):
        api.mode, api.hang_s = mode, 0.5
        try:
            backend_for(api, timeoutMs=200, headers={"X-Api-Key": "header-secret"}).search(
                "key_a", RetrievalRequest(query="x"), read_only=True
            )
        except BackendError as exc:
            messages.append(exc.message)
    api.stop()
    messages.append(backend.health().error or "")
    text = " ".join(messages) + caplog.text
    assert len(messages) == 5
    assert KEY not in text and "header-secret" not in text
    assert KEY not in repr(backend.config) and KEY not in str(backend.config.model_dump())
