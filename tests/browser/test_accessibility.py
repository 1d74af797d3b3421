"""Each tab at laptop and phone width: no serious or critical axe-core violations, no
page wider than the screen, and a screenshot of each (under pytest's temporary directory)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import LAPTOP, PHONE, Studio

TABS = ("memories", "playground", "engine")


@pytest.fixture(scope="module")
def seeded(server):
    """A key with memories of every type, as a new user would have after a few chats."""
    secret = server.api_key("demo-app")
    keys = httpx.get(f"{server.base}/api/keys", headers=server.admin).json()
    owner = next(k["id"] for k in keys if secret.startswith(k["prefix"]))
    for content, kind in [
        ("I prefer dark mode in my editor", "factual"),
        ("We chose PostgreSQL for the billing service", "episodic"),
        ("Always run the linter before pushing", "procedural"),
        ("The team calls the staging cluster 'blue'", "semantic"),
        ("My cat is named Biscuit", "factual"),
    ]:
        body = {"apiKeyId": owner, "content": content, "type": kind}
        httpx.post(f"{server.base}/api/memory", json=body, headers=server.admin)
    return owner


def fill(studio: Studio, tab: str, owner: str) -> None:
    """Bring a tab to its informative state: results on screen, statuses loaded."""
    page = studio.page
    if tab == "playground":
        page.fill("#p-key", owner)
        page.fill("#p-query", "which editor theme and database do we use?")
        page.click("#pg-form button[type=submit]")
        page.wait_for_selector("#ranked li.hit")
    elif tab == "engine":
        page.wait_for_selector("#chips li")
        expect(page.locator("#keys li").first).to_be_visible()
    else:
        expect(page.locator("#stat-chart svg")).to_be_visible()


@pytest.mark.parametrize("width", ["laptop", "phone"])
@pytest.mark.parametrize("tab", TABS)
def test_each_tab_is_accessible_and_fits_the_screen(studio: Studio, seeded, tab, width) -> None:
    page = studio.page
    page.set_viewport_size(LAPTOP if width == "laptop" else PHONE)
    studio.sign_in()
    if tab != "memories":
        studio.tab(tab)
    fill(studio, tab, seeded)
    violations = studio.axe()
    assert not violations, violations
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than the screen"
    studio.screenshot(f"{tab}-{width}")
    if width == "phone":  # the first screen, as a phone shows it
        page.evaluate("window.scrollTo(0, 0)")
        studio.screenshot(f"{tab}-phone-first-screen", full_page=False)


def test_the_sign_in_page_is_accessible(studio: Studio) -> None:
    assert not studio.axe()
    studio.screenshot("sign-in", full_page=False)


def test_tabs_work_from_the_keyboard(studio: Studio) -> None:
    page = studio.sign_in().page
    page.focus("#tab-memories")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-playground")).to_have_attribute("aria-selected", "true")
    assert page.is_visible("#panel-playground") and page.is_hidden("#panel-memories")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#tab-engine")).to_have_attribute("aria-selected", "true")
    assert page.evaluate("document.activeElement.id") == "tab-engine"
