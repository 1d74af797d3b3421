"""The Playground tab end to end: a key's secret or id, a query, strategy, scope and
budget -> the ranked preview with score bars, tiers, tokens, the running budget, the
resolution, and the exact block a chat would get."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.support.server import Server

from .conftest import Studio

FACTS = [
    "I prefer dark mode in my editor",
    "We deploy the backend with PostgreSQL on Fridays",
    "My cat is named Biscuit",
]


def seed(server: Server, name: str) -> tuple[str, str]:
    """A key (its secret and id) with a few memories."""
    secret = server.api_key(name)
    keys = httpx.get(f"{server.base}/api/keys", headers=server.admin).json()
    owner = next(k["id"] for k in keys if secret.startswith(k["prefix"]))
    for fact in FACTS:
        body = {"apiKeyId": owner, "content": fact}
        httpx.post(f"{server.base}/api/memory", json=body, headers=server.admin).raise_for_status()
    return secret, owner


def preview(server: Server, **body: object) -> dict:
    response = httpx.post(
        f"{server.base}/api/memory/retrieve-preview", json=body, headers=server.admin
    )
    response.raise_for_status()
    return dict(response.json())


def test_a_preview_from_a_secret_shows_ranking_resolution_and_block(studio: Studio) -> None:
    secret, owner = seed(studio.server, "playground")
    page = studio.sign_in().tab("playground").page
    page.fill("#p-key", secret)
    page.fill("#p-query", "which editor theme do I like?")
    page.select_option("#p-strategy", "hybrid")
    page.fill("#p-budget", "500")
    page.click("#pg-form button[type=submit]")
    page.wait_for_selector("#ranked li.hit")
    # The secret was matched to its key by prefix and does not stay on screen.
    assert page.input_value("#p-key") == owner
    assert secret not in page.content()
    assert not [u for u in studio.urls if secret in u]

    expected = preview(
        studio.server, apiKeyId=owner, query="which editor theme do I like?", maxTokens=500
    )
    hits = page.locator("#ranked li.hit")
    assert hits.count() == len(expected["results"])
    first, top = hits.nth(0), expected["results"][0]
    assert first.locator(".content").inner_text() == top["content"] == FACTS[0]
    meta = first.locator(".meta").inner_text()
    assert top["tier"] in meta and f"{top['tokens']} tokens" in meta
    assert f"running {top['tokens']} / 500" in meta
    assert f"score {top['score']:.3f}" in meta
    # Keyword and vector parts as bars, sized by the scores.
    assert first.locator(".fill.kw").count() == 1 and first.locator(".fill.vec").count() == 1
    vec_width = first.locator(".fill.vec").evaluate("el => el.style.width")
    assert vec_width == f"{round(max(0.0, min(1.0, top['vecScore'] or 0.0)) * 100)}%"
    # The resolution, as the API reports it.
    resolution = page.inner_text("#resolution")
    assert "fts5" in resolution and expected["resolution"]["strategy"] in resolution
    assert (expected["resolution"]["embeddingSource"] or "none") in resolution
    assert f"{expected['tokensUsed']} of 500" in resolution
    assert expected["resolution"]["degraded"] == [] and "Degraded\nno" in resolution
    # The exact block a chat would get.
    block = page.inner_text("#block")
    assert block.startswith("Memory context:")
    assert FACTS[0] in block
    injected = expected["injection"]["messages"][0]
    assert block == injected["content"]
    studio.screenshot("playground")


def test_a_key_id_a_strategy_and_a_scope_are_honoured(studio: Studio) -> None:
    _, owner = seed(studio.server, "playground-exact")
    page = studio.sign_in().tab("playground").page
    page.fill("#p-key", owner)
    page.select_option("#p-strategy", "exact")
    page.fill("#p-query", "")
    page.click("#pg-form button[type=submit]")
    page.wait_for_selector("#ranked li.hit")
    expected = preview(studio.server, apiKeyId=owner, strategy="exact", maxTokens=2000)
    shown = page.locator("#ranked li.hit .content").all_inner_texts()
    assert shown == [m["content"] for m in expected["results"]]
    assert "exact" in page.inner_text("#resolution")
    # Session scope needs a session: the form says so before anything is sent.
    page.select_option("#p-scope", "session")
    page.click("#pg-form button[type=submit]")
    assert page.evaluate("document.querySelector('#p-session').validity.valueMissing")


def test_nothing_relevant_means_nothing_injected(studio: Studio) -> None:
    _, owner = seed(studio.server, "playground-none")
    page = studio.sign_in().tab("playground").page
    page.fill("#p-key", owner)
    page.fill("#p-query", "quantum chromodynamics lattice")
    page.click("#pg-form button[type=submit]")
    expect(page.locator("#block-note")).to_contain_text("Nothing would be injected")
    assert page.locator("#ranked li.hit").count() == 0
    assert page.is_hidden("#block")


def test_a_bad_key_id_is_a_readable_error(studio: Studio) -> None:
    studio.allow_http_errors()
    page = studio.sign_in().tab("playground").page
    page.fill("#p-key", "no such key!")
    page.fill("#p-query", "anything")
    page.click("#pg-form button[type=submit]")
    message = page.locator("#pg-msg.error")
    message.wait_for()
    assert message.inner_text().startswith("apiKeyId:")
    assert page.is_hidden("#pg-out")


def test_the_tiers_are_shown_and_a_memory_is_pinned_from_the_playground(studio: Studio) -> None:
    """A profile memory comes whatever the question, with its tier, reason and tokens; a
    memory pinned from the ranking joins the profile."""
    _secret, owner = seed(studio.server, "tiers")
    diet = {"apiKeyId": owner, "content": "is vegetarian", "metadata": {"category": "health"}}
    httpx.post(f"{studio.server.base}/api/memory", json=diet, headers=studio.server.admin)
    page = studio.sign_in().tab("playground").page
    page.fill("#p-key", owner)
    page.fill("#p-query", "which editor theme do I like?")
    page.click("#pg-form button[type=submit]")
    page.wait_for_selector("#ranked li.hit")
    expected = preview(studio.server, apiKeyId=owner, query="which editor theme do I like?")
    profile = page.locator('#ranked li.hit[data-tier="profile"]')
    expect(profile).to_have_count(1)
    assert "is vegetarian" in profile.inner_text()
    assert "profile: category health" in profile.locator(".meta").inner_text()
    resolution = page.inner_text("#resolution")
    assert f"{expected['profileTokens']} (always injected)" in resolution
    assert f"{expected['recallTokens']} (relevant to this message)" in resolution
    block = page.inner_text("#block")
    assert "About the user (always applies):" in block and "- health: is vegetarian" in block

    recalled = page.locator("#ranked li.hit").filter(has_text=FACTS[0])
    recalled.get_by_role("button", name="Pin to profile").click()
    expect(page.locator('#ranked li.hit[data-tier="profile"]')).to_have_count(2)
    after = preview(studio.server, apiKeyId=owner, query="what is the capital of France?")
    assert {r["content"] for r in after["results"] if r["tier"] == "profile"} == {
        "is vegetarian",
        FACTS[0],
    }
