"""The Engine tab end to end: tier chips from the live status, embeddings and reindex
progress, Qdrant settings and checks, memory backends, API keys (the secret shown once)."""

from __future__ import annotations

import time

import httpx
from playwright.sync_api import expect

from tests.support.server import Server

from .conftest import Studio


def status(server: Server) -> dict:
    return dict(httpx.get(f"{server.base}/api/memory/engine-status", headers=server.admin).json())


def add(server: Server, owner: str, content: str) -> None:
    body = {"apiKeyId": owner, "content": content}
    httpx.post(f"{server.base}/api/memory", json=body, headers=server.admin).raise_for_status()


def test_tier_chips_and_embeddings_follow_the_engine_status(studio: Studio) -> None:
    add(studio.server, "tiers-key", "a memory whose vector sets the signature")
    deadline = time.monotonic() + 20
    while not status(studio.server)["vectorStore"]["signature"]:
        assert time.monotonic() < deadline, "the embedding worker stored no vector"
        time.sleep(0.1)
    page = studio.sign_in().tab("engine").page
    page.wait_for_selector("#chips li")
    chips = page.locator("#chips li").all_inner_texts()
    assert [c.split()[0] for c in chips] == ["FTS5", "libSQL", "Qdrant", "Rerank", "Extractor"]
    assert chips[0].startswith("FTS5 active")
    assert chips[1].startswith("libSQL vectors active")
    assert chips[2].startswith("Qdrant off") and chips[3].startswith("Rerank off")
    assert chips[4].startswith("Extractor active") and "rules" in chips[4]
    now = status(studio.server)
    embedding = page.inner_text("#embedding")
    assert "rules: offline, no cost" in embedding
    assert now["vectorStore"]["signature"] in embedding
    assert "potion-base-8M" in embedding
    assert "Degraded retrievals\n0" in embedding or "Degraded retrievals 0" in embedding
    # Live: a change made elsewhere shows without a reload.
    studio.server.settings(rerankEnabled=True, rerankProviderModel="stub/rerank")
    expect(page.locator("#chips li").nth(3)).to_contain_text("Rerank active", timeout=12_000)
    studio.server.settings(rerankEnabled=False)
    # Which extractor learns, and what it costs, follows the settings too.
    studio.server.settings(
        extractor="rules+llm", extractorModel="small-model", extractorDailyTokens=50000
    )
    expect(page.locator("#chips li").nth(4)).to_contain_text("rules+llm", timeout=12_000)
    expect(page.locator("#embedding")).to_contain_text("50,000 tokens per key per day")
    expect(page.locator("#embedding")).to_contain_text("small-model at the upstream")
    studio.server.settings(extractor="rules")
    # The memory backends and their health.
    backends = page.locator("#backends li")
    assert backends.count() == 1 and "libsql" in backends.inner_text()
    backends.get_by_role("button", name="Test").click()
    expect(backends).to_contain_text("healthy")
    studio.screenshot("engine")


def test_reindex_fills_the_progress_bar(studio: Studio) -> None:
    server = studio.server
    studio.allow_http_errors()
    # Without an embedder new memories wait for a vector.
    server.settings(staticEnabled=False)
    for i in range(6):
        add(server, "reindex-key", f"pending memory number {i} about sailing")
    waiting = status(server)["vectorStore"]
    assert waiting["pendingReindex"] >= 6
    page = studio.sign_in().tab("engine").page
    expect(page.locator("#embedding")).to_contain_text(
        f"{waiting['pendingReindex']} of {waiting['totalMemories']}"
    )
    bar = page.locator("#reindex-bar")
    done = waiting["totalMemories"] - waiting["pendingReindex"]
    assert int(bar.evaluate("el => el.value")) == round(done / waiting["totalMemories"] * 100) < 100
    # No embedder: the reindex says why it cannot start.
    page.click("#reindex")
    expect(page.locator("#reindex-msg.error")).to_contain_text("Reindex did not start")
    # With one, it runs to the end and the bar follows the status to 100%.
    server.settings(staticEnabled=True)
    page.click("#reindex")
    expect(page.locator("#reindex-msg")).to_contain_text("Reindex complete")
    assert int(bar.evaluate("el => el.value")) == 100
    assert status(server)["vectorStore"]["pendingReindex"] == 0
    assert "100%" in page.inner_text("#reindex-text")


def test_a_new_key_shows_its_secret_once_and_can_be_revoked(studio: Studio) -> None:
    server = studio.server
    page = studio.sign_in().tab("engine").page
    page.fill("#k-name", "my-chat-app")
    page.click("#key-form button[type=submit]")
    page.wait_for_selector("#secret-box:not([hidden])")
    secret = page.inner_text("#secret")
    keys = httpx.get(f"{server.base}/api/keys", headers=server.admin).json()
    (key,) = [k for k in keys if k["name"] == "my-chat-app"]
    assert secret.startswith(key["prefix"]) and len(secret) > len(key["prefix"])
    assert secret not in studio.server.log.read_text()
    row = page.locator(f'#keys li[data-id="{key["id"]}"]')
    expect(row).to_contain_text("my-chat-app")
    assert secret not in row.inner_text()
    page.click("#secret-hide")
    assert page.is_hidden("#secret-box") and page.inner_text("#secret") == ""
    page.reload()
    page.wait_for_selector("#tabs:not([hidden])")
    studio.tab("engine")
    expect(page.locator(f'#keys li[data-id="{key["id"]}"]')).to_be_visible()
    assert secret not in page.content()
    # Revoke, with confirmation.
    page.locator(f'#keys li[data-id="{key["id"]}"]').get_by_role("button", name="Revoke").click()
    assert "my-chat-app" in page.inner_text("#confirm-text")
    page.click("#confirm-ok")
    expect(page.locator("#keys-msg")).to_contain_text("Revoked my-chat-app")
    keys = httpx.get(f"{server.base}/api/keys", headers=server.admin).json()
    assert next(k for k in keys if k["id"] == key["id"])["revokedAt"] is not None


def test_qdrant_settings_checks_and_readable_errors(studio: Studio) -> None:
    studio.allow_http_errors()
    page = studio.sign_in().tab("engine").page
    expect(page.locator("#q-collection")).to_have_value("engram_memory")
    # Not enabled: the test search answers with the API's reason.
    page.fill("#qs-query", "editor theme")
    page.click("#qs-form button[type=submit]")
    expect(page.locator("#qd-msg.error")).to_contain_text("qdrant is not enabled")
    page.click("#q-health")
    expect(page.locator("#qd-msg.error")).to_contain_text("not healthy")
    # A bad value is refused with the field named; nothing is stored.
    page.fill("#q-host", "not a host!")
    page.click("#qd-form button[type=submit]")
    expect(page.locator("#qd-msg.error")).to_contain_text("host")
    stored = httpx.get(f"{studio.server.base}/api/settings/qdrant", headers=studio.server.admin)
    assert stored.json()["host"] == ""
    # A good one is saved and read back.
    page.fill("#q-host", "")
    page.fill("#q-collection", "studio_test")
    page.select_option("#q-quant", "int8")
    page.click("#qd-form button[type=submit]")
    expect(page.locator("#qd-msg.ok")).to_contain_text("saved")
    stored = httpx.get(f"{studio.server.base}/api/settings/qdrant", headers=studio.server.admin)
    assert (stored.json()["collection"], stored.json()["quantization"]) == ("studio_test", "int8")


def test_qdrant_enabled_answers_health_test_search_and_cleanup(studio: Studio) -> None:
    """Embedded Qdrant (no host), switched on from the tab: the new memory's point is found."""
    page = studio.sign_in().tab("engine").page
    expect(page.locator("#q-collection")).not_to_have_value("")  # the settings are loaded
    page.fill("#q-collection", "studio_live")
    page.check("#q-enabled")
    page.click("#qd-form button[type=submit]")
    expect(page.locator("#qd-msg.ok")).to_contain_text("saved")
    expect(page.locator("#chips li").nth(2)).to_contain_text("Qdrant active")
    add(studio.server, "qdrant-key", "our staging cluster is called blue")
    deadline = time.monotonic() + 20
    while not (status(studio.server)["qdrant"].get("points") or 0):
        assert time.monotonic() < deadline, "the memory never reached Qdrant"
        time.sleep(0.2)
    page.click("#q-health")
    expect(page.locator("#qd-msg.ok")).to_contain_text("Qdrant is healthy")
    page.fill("#qs-query", "staging cluster name")
    page.click("#qs-form button[type=submit]")
    expect(page.locator("#qd-hits li").first).to_contain_text("our staging cluster is called blue")
    page.click("#q-cleanup")
    expect(page.locator("#qd-msg.ok")).to_contain_text("No expired or too-old points")
    studio.screenshot("engine-qdrant")
    page.uncheck("#q-enabled")
    page.click("#qd-form button[type=submit]")
    expect(page.locator("#chips li").nth(2)).to_contain_text("Qdrant off")
