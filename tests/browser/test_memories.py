"""The Memories tab end to end: sign-in, list, filters, paging, add, inline edit, delete,
the history of a fact, stats, the on/off switch and the health dot (the bulk actions are
in test_bulk.py)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.server import Server, engram_server
from tests.support.upstream_stub import StubUpstream

from .conftest import Studio
from .helpers import add, listed


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """With a stand-in upstream: the history test learns facts from real chats."""
    upstream = StubUpstream()
    upstream.start()
    try:
        with engram_server(
            tmp_path_factory.mktemp("studio"), ENGRAM_UPSTREAM_BASE_URL=upstream.url
        ) as running:
            yield running
    finally:
        upstream.stop()


def keys(server: Server) -> list[dict[str, str]]:
    return list(httpx.get(f"{server.base}/api/keys", headers=server.admin).json())


def learned(server: Server, owner: str, said: str) -> bool:
    """Whether the extraction worker has written what ``said`` taught."""
    word = "Django" if "Django" in said else "FastAPI"
    return any(word in str(m["content"]) for m in listed(server, owner))


def wait_for(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def show_key(studio: Studio, key: str) -> None:
    studio.page.fill("#f-key", key)
    studio.page.click("#filters button[type=submit]")


def test_sign_in_keeps_the_token_in_session_storage_only(studio: Studio) -> None:
    studio.allow_http_errors()  # the wrong token's 401
    studio.sign_in("not-the-token")
    assert "token was refused" in studio.page.inner_text("#signin-msg")
    assert studio.page.is_hidden("#tabs")
    studio.sign_in()
    page = studio.page
    assert page.url.endswith("/studio")
    assert (
        page.evaluate("sessionStorage.getItem('engram.studio.adminToken')") == studio.server.token
    )
    assert page.evaluate("localStorage.length") == 0
    assert page.context.cookies() == []
    assert studio.server.token not in studio.server.log.read_text()
    # The health dot is the health round trip's answer.
    assert "working" in (page.get_attribute("#health", "aria-label") or "")
    assert "good" in (page.get_attribute("#health", "class") or "")
    # A reload stays signed in (same tab); signing out forgets the token.
    page.reload()
    page.wait_for_selector("#tabs:not([hidden])")
    page.click("#sign-out")
    assert page.evaluate("sessionStorage.length") == 0
    assert page.is_visible("#signin-form")


def test_add_edit_and_delete_with_confirmation(studio: Studio) -> None:
    page = studio.sign_in().page
    page.fill("#a-key", "crud-key")
    page.fill("#a-content", "I prefer dark mode in my editor")
    page.select_option("#a-type", "procedural")
    page.click("#add-form button[type=submit]")
    page.wait_for_selector("#add-msg.ok")
    (memory,) = listed(studio.server, "crud-key")
    assert memory["content"] == "I prefer dark mode in my editor"
    assert memory["type"] == "procedural"

    show_key(studio, "crud-key")
    row = page.locator(f'#mem-list li[data-id="{memory["id"]}"]')
    row.get_by_role("button", name="Edit").click()
    row.get_by_label("Content").fill("I prefer light mode in my editor")
    row.get_by_label("Type").select_option("factual")
    row.get_by_role("button", name="Save").click()
    page.wait_for_selector(f'#mem-list li[data-id="{memory["id"]}"] .msg.ok')
    assert row.locator(".content").inner_text() == "I prefer light mode in my editor"
    (changed,) = listed(studio.server, "crud-key")
    assert (changed["content"], changed["type"]) == ("I prefer light mode in my editor", "factual")

    row.get_by_role("button", name="Delete").click()
    assert "light mode" in page.inner_text("#confirm-text")
    page.click("#confirm button[value=cancel]")
    assert listed(studio.server, "crud-key")  # cancelled: nothing deleted
    row.get_by_role("button", name="Delete").click()
    page.click("#confirm-ok")
    page.wait_for_selector("#mem-list li.empty")
    assert listed(studio.server, "crud-key") == []
    studio.screenshot("memories-after-delete")


def test_bad_input_is_shown_as_a_readable_error(studio: Studio) -> None:
    studio.allow_http_errors()
    page = studio.sign_in().page
    page.fill("#a-key", "not a valid key id!")
    page.fill("#a-content", "something to remember")
    page.click("#add-form button[type=submit]")
    message = page.locator("#add-msg.error")
    message.wait_for()
    assert "apiKeyId" in message.inner_text()
    assert "pattern" in message.inner_text()


def test_search_type_and_session_filters_and_paging(studio: Studio) -> None:
    server = studio.server
    for i in range(23):
        add(server, "paging-key", f"paging note number {i} about kotlin", key=f"note:{i}")
    add(server, "paging-key", "the deploy runbook lives in the wiki", type="procedural")
    add(server, "paging-key", "standup is at nine", sessionId="team-chat", type="episodic")
    page = studio.sign_in().page
    show_key(studio, "paging-key")
    expect(page.locator("#page-info")).to_contain_text("25 memories")
    assert page.inner_text("#page-info") == "Page 1 of 2 · 25 memories"
    assert page.locator("#mem-list li.mem").count() == 20
    page.click("#next")
    expect(page.locator("#page-info")).to_contain_text("Page 2")
    assert page.locator("#mem-list li.mem").count() == 5
    assert page.is_disabled("#next")

    page.select_option("#f-type", "procedural")
    page.click("#filters button[type=submit]")
    expect(page.locator("#page-info")).to_contain_text("1 memory")
    assert page.locator("#mem-list li.mem .content").all_inner_texts() == [
        "the deploy runbook lives in the wiki"
    ]
    page.select_option("#f-type", "")
    page.fill("#f-session", "team-chat")
    page.click("#filters button[type=submit]")
    expect(page.locator("#mem-list .content").first).to_contain_text("standup")
    assert page.locator("#mem-list li.mem").count() == 1
    page.fill("#f-session", "")
    page.fill("#f-q", "runbook")
    page.click("#filters button[type=submit]")
    expect(page.locator("#mem-list .content").first).to_contain_text("runbook")
    assert page.locator("#mem-list li.mem").count() == 1

    # Stats: totals by type drawn as a chart, for the filtered key.
    page.fill("#f-q", "")
    page.click("#filters button[type=submit]")
    expect(page.locator("#page-info")).to_contain_text("25 memories")
    chart = page.get_attribute("#stat-chart svg", "aria-label") or ""
    assert "factual 23" in chart and "procedural 1" in chart and "episodic 1" in chart
    assert page.locator("#stat-chart rect").count() == 4
    assert page.inner_text("#stat-total") == "25"  # the chart's own set
    # A search narrows both: never a key's total beside a chart of what matched.
    page.fill("#f-q", "runbook")
    page.click("#filters button[type=submit]")
    expect(page.locator("#page-info")).to_contain_text("1 memory")
    expect(page.locator("#stat-total")).to_have_text("1")
    chart = page.get_attribute("#stat-chart svg", "aria-label") or ""
    assert "procedural 1" in chart and "factual 0" in chart


def test_history_of_a_superseded_fact(studio: Studio) -> None:
    """A correction in a chat supersedes the fact; the studio shows both versions."""
    server = studio.server
    server.settings(enabled=True, storeConversation=False)  # the facts alone
    secret = server.api_key("history")
    owner = next(k["id"] for k in keys(server) if secret.startswith(k["prefix"]))
    for text in (
        "We'll use FastAPI for the backend.",
        "Scratch that, we'll use Django instead of FastAPI.",
    ):
        chat = httpx.post(
            f"{server.base}/v1/chat/completions",
            json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]},
            headers={"Authorization": f"Bearer {secret}"},
            timeout=30,
        )
        assert chat.status_code == 200, chat.text
        wait_for(lambda t=text: learned(server, owner, t))
    (newer,) = listed(server, owner)
    page = studio.sign_in().page
    show_key(studio, owner)
    row = page.locator(f'#mem-list li[data-id="{newer["id"]}"]')
    row.get_by_role("button", name="History").click()
    page.wait_for_selector("#history[open]")
    items = page.locator("#history-list li")
    assert items.count() == 2
    assert "use Django" in items.nth(0).inner_text() and "live" in items.nth(0).inner_text()
    assert "use FastAPI" in items.nth(1).inner_text()
    assert "superseded" in items.nth(1).inner_text()
    studio.screenshot("memories-history", full_page=False)
    page.click("#history button[value=close]")


def test_turning_memory_on_warns_about_token_cost(studio: Studio) -> None:
    server = studio.server
    server.settings(enabled=False, maxTokens=1500)
    page = studio.sign_in().page
    expect(page.locator("#mem-enabled")).to_have_text("off")
    assert "1500" in page.inner_text("#mem-cost") and "tokens" in page.inner_text("#mem-cost")
    page.click("#mem-toggle")
    assert "1500 extra prompt tokens" in page.inner_text("#confirm-text")
    page.click("#confirm button[value=cancel]")
    settings = httpx.get(f"{server.base}/api/settings/memory", headers=server.admin).json()
    assert settings["enabled"] is False
    page.click("#mem-toggle")
    page.click("#confirm-ok")
    expect(page.locator("#mem-enabled")).to_have_text("on")
    settings = httpx.get(f"{server.base}/api/settings/memory", headers=server.admin).json()
    assert settings["enabled"] is True
    page.click("#mem-toggle")  # off needs no warning
    expect(page.locator("#mem-enabled")).to_have_text("off")


def test_pin_and_unpin_move_a_memory_into_and_out_of_the_profile(studio: Studio) -> None:
    page = studio.sign_in().page
    add(studio.server, "pin-key", "Plays the cello on Sundays")
    (memory,) = listed(studio.server, "pin-key")
    assert memory["profile"] is False
    show_key(studio, "pin-key")
    row = page.locator(f'#mem-list li[data-id="{memory["id"]}"]')
    expect(row.locator(".badge.profile")).to_have_count(0)
    row.get_by_role("button", name="Pin", exact=True).click()
    expect(row.locator(".badge.profile")).to_have_text("profile")
    (pinned,) = listed(studio.server, "pin-key")
    assert pinned["profile"] is True and pinned["metadata"]["pinned"] is True
    row.get_by_role("button", name="Unpin").click()
    expect(row.locator(".badge.profile")).to_have_count(0)
    (unpinned,) = listed(studio.server, "pin-key")
    assert unpinned["profile"] is False and unpinned["metadata"]["pinned"] is False


def test_adding_twice_with_a_key_makes_two_memories(studio: Studio) -> None:
    """The form forgets the key after a save: the next add is a new memory, not a silent
    replacement of the first (upsert by key)."""
    page = studio.sign_in().page
    page.fill("#a-key", "twice-key")
    page.fill("#a-ukey", "preference:editor")
    page.fill("#a-content", "I use Vim")
    page.click("#add-form button[type=submit]")
    page.wait_for_selector("#add-msg.ok")
    assert page.input_value("#a-ukey") == "" and page.input_value("#a-content") == ""
    assert page.input_value("#a-key") == "twice-key"  # whose memories: kept on purpose
    page.fill("#a-content", "I drink tea")
    page.click("#add-form button[type=submit]")
    expect(page.locator("#add-msg")).not_to_contain_text("preference:editor")
    page.wait_for_function(
        "() => document.querySelector('#add-msg').textContent.startsWith('Saved as')"
    )
    contents = sorted(str(m["content"]) for m in listed(studio.server, "twice-key"))
    assert contents == ["I drink tea", "I use Vim"]


def test_a_memory_names_the_key_that_owns_it(studio: Studio) -> None:
    server = studio.server
    made = httpx.post(
        f"{server.base}/api/keys", json={"name": "kitchen-tablet"}, headers=server.admin
    ).json()
    add(server, made["id"], "the tablet lives in the kitchen")
    page = studio.sign_in().page
    show_key(studio, made["id"])
    meta = page.locator("#mem-list li.mem .meta").first
    expect(meta).to_contain_text(f"API key kitchen-tablet ({made['id']})")
