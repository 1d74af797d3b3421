"""Memory Studio in a real headless Chromium (Debian's ``chromium``, driven by Playwright)
against a real ``engram serve``: no mocks between the page and the API.

Without Chromium (or Playwright) these tests are skipped on a developer's machine and
fail in CI (``CI`` or ``ENGRAM_REQUIRE_BROWSER`` set), so a CI run never passes by
silently skipping them. ``make browser-deps`` installs Chromium with apt.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server import Server, engram_server

CHROMIUM = os.environ.get("ENGRAM_CHROMIUM", "/usr/bin/chromium")
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# What Chromium prints for a response with an error status: expected only where a test
# sends bad input on purpose (``studio.allow_http_errors()``).
HTTP_ERROR = re.compile(r"Failed to load resource: the server responded with a status of 4\d\d")


def _required() -> bool:
    return any(
        os.environ.get(name, "") not in ("", "0", "false")
        for name in ("CI", "ENGRAM_REQUIRE_BROWSER")
    )


def _unavailable(why: str) -> None:
    if _required():
        pytest.fail(f"browser tests cannot run: {why} (run `make browser-deps`)", pytrace=False)
    pytest.skip(f"{why}: run `make browser-deps` to run the browser tests")


# Per module, not per session: Playwright's sync API keeps an event loop running in this
# thread while it is started, which would break later tests that run one of their own.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _unavailable(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        # A container's small /dev/shm must not crash the renderer.
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--disable-dev-shm-usage"]
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server per test module; tests keep apart by using API key ids of their own."""
    with engram_server(tmp_path_factory.mktemp("studio")) as running:
        yield running


class Studio:
    """A signed-in page, and what it must not do: throw, log errors, put the token in URLs."""

    def __init__(self, page: Any, server: Server, shots: Path) -> None:
        self.page = page
        self.server = server
        self.shots = shots
        self.errors: list[str] = []
        self.console: list[str] = []
        self.urls: list[str] = []
        self.http_errors_allowed = False
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        page.on("request", lambda request: self.urls.append(request.url))

    def open(self) -> Studio:
        self.page.goto(f"{self.server.base}/")
        self.page.wait_for_selector("#signin-form")
        return self

    def sign_in(self, token: str | None = None) -> Studio:
        self.page.fill("#signin-token", token or self.server.token)
        self.page.click("#signin-form button")
        if token is None:
            self.page.wait_for_selector("#tabs:not([hidden])")
            self.page.wait_for_selector("#mem-list li")
        else:
            self.page.wait_for_selector("#signin-msg:not([hidden])")
        return self

    def tab(self, name: str) -> Studio:
        self.page.click(f"#tab-{name}")
        self.page.wait_for_selector(f"#panel-{name}:not([hidden])")
        return self

    def allow_http_errors(self) -> None:
        self.http_errors_allowed = True

    def screenshot(self, name: str, full_page: bool = True) -> Path:
        path = self.shots / f"{name}.png"
        if full_page:  # from the top: a scrolled page would draw its sticky header midway
            self.page.evaluate("window.scrollTo(0, 0)")
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def axe(self) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations on the page as it is now."""
        # Evaluated over the DevTools protocol: the page's CSP (no inline script) stays on.
        self.page.evaluate(AXE.read_text(encoding="utf-8"))
        found: list[dict[str, Any]] = self.page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
            " nodes: v.nodes.map(n => n.target.join(' '))}))"
        )
        return [v for v in found if v["impact"] in ("serious", "critical")]

    def check(self) -> None:
        assert not self.errors, f"uncaught errors in the page: {self.errors}"
        console = [
            m for m in self.console if not (self.http_errors_allowed and HTTP_ERROR.search(m))
        ]
        assert not console, f"console errors: {console}"
        leaked = [u for u in self.urls if self.server.token in u]
        assert not leaked, "the admin token appeared in a URL"


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: pytest's temporary tree (`--basetemp` to choose it), never the
    checkout."""
    return tmp_path_factory.mktemp("studio-screenshots")


@pytest.fixture
def studio(browser: Any, server: Server, screenshots: Path) -> Iterator[Studio]:
    context = browser.new_context(viewport=LAPTOP, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    studio = Studio(page, server, screenshots)
    yield studio.open()
    try:
        studio.check()
    finally:
        context.close()
