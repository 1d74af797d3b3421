"""The Memories tab's bulk actions end to end: forget (counted first), export and import
(all or nothing, every bad item shown), compacting old memories (previewed first)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
from playwright.sync_api import expect

from .conftest import Studio
from .helpers import add, listed


def test_bulk_forget_counts_before_it_forgets(studio: Studio) -> None:
    server = studio.server
    for i in range(3):
        add(server, "forget-key", f"temporary fact {i} about gardening", key=f"tmp:{i}")
    add(server, "forget-key", "a procedure to keep", type="procedural")
    page = studio.sign_in().page
    page.fill("#g-key", "forget-key")
    page.select_option("#g-type", "factual")
    page.click("#forget-form button[type=submit]")
    page.wait_for_selector("#forget-msg.ok")
    assert page.inner_text("#forget-msg").startswith("3 memories")
    assert len(listed(server, "forget-key")) == 4  # the count changed nothing
    assert page.inner_text("#forget-go") == "Forget 3 memories"
    page.click("#forget-go")
    page.click("#confirm-ok")
    expect(page.locator("#forget-msg")).to_contain_text("Forgot")
    assert page.inner_text("#forget-msg").startswith("Forgot 3 memories")
    assert [m["type"] for m in listed(server, "forget-key")] == ["procedural"]


def test_export_and_import_round_trip(studio: Studio, tmp_path) -> None:
    server = studio.server
    originals = [
        add(server, "io-key", "I prefer TypeScript", key="preference:typescript"),
        add(server, "io-key", "deploys happen on fridays", type="episodic", sessionId="s1"),
    ]
    page = studio.sign_in().page
    page.fill("#x-key", "io-key")
    with page.expect_download() as ndjson_download:
        page.click("#export-ndjson")
    ndjson = tmp_path / "export.ndjson"
    ndjson_download.value.save_as(ndjson)
    lines = [json.loads(line) for line in ndjson.read_text().splitlines()]
    assert sorted(m["id"] for m in lines) == sorted(m["id"] for m in originals)
    with page.expect_download() as json_download:
        page.click("#export-json")
    exported = tmp_path / "export.json"
    json_download.value.save_as(exported)
    assert json.loads(exported.read_text()) == lines

    httpx.delete(f"{server.base}/api/memory", params={"apiKeyId": "io-key"}, headers=server.admin)
    assert listed(server, "io-key") == []
    # Every message the import shows, in order: what is under way, then what was done.
    page.evaluate(
        """() => {
          window.said = [];
          const out = document.querySelector("#io-msg");
          new MutationObserver(() => window.said.push(out.textContent))
            .observe(out, { childList: true, characterData: true, subtree: true });
        }"""
    )
    page.set_input_files("#i-file", str(ndjson))
    page.click("#import-form button[type=submit]")
    page.wait_for_selector("#io-msg.ok")
    assert page.inner_text("#io-msg") == "Imported 2: 2 new, 0 updated."
    assert "Importing 2 lines of export.ndjson…" in page.evaluate("window.said")
    assert sorted(listed(server, "io-key"), key=lambda m: str(m["id"])) == sorted(
        originals, key=lambda m: str(m["id"])
    )
    page.set_input_files("#i-file", str(exported))
    page.click("#import-form button[type=submit]")
    expect(page.locator("#io-msg")).to_contain_text("2 updated")


def test_an_invalid_import_shows_every_bad_item_and_imports_nothing(
    studio: Studio, tmp_path
) -> None:
    studio.allow_http_errors()
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            [
                {"apiKeyId": "bad-import", "content": "a fine memory"},
                {"apiKeyId": "bad-import", "content": ""},
                {"apiKeyId": "bad-import", "content": "ok", "type": "gossip"},
            ]
        )
    )
    page = studio.sign_in().page
    page.set_input_files("#i-file", str(bad))
    page.click("#import-form button[type=submit]")
    page.wait_for_selector("#io-msg.error")
    text = page.inner_text("#io-msg")
    assert "2 of 3 item(s) are invalid; nothing was imported" in text
    items = page.locator("#io-msg li").all_inner_texts()
    assert any(i.startswith("item 1, content:") for i in items), items
    assert any(i.startswith("item 2, type:") for i in items), items
    assert listed(studio.server, "bad-import") == []


def test_compacting_old_memories_previews_first(studio: Studio) -> None:
    server = studio.server
    # Older than the 10 days asked for, younger than the 30 days of retention.
    old = (datetime.now(UTC) - timedelta(days=20)).isoformat()
    lines = [
        {
            "apiKeyId": "compact-key",
            "key": f"old:{i}",
            "content": text,
            "createdAt": old,
            "updatedAt": old,
        }
        for i, text in enumerate(
            ["We used Jenkins for CI back then.", "The office was in Leeds. It had a garden."]
        )
    ]
    body = "\n".join(json.dumps(line) for line in lines)
    imported = httpx.post(
        f"{server.base}/api/memory/import",
        content=body,
        headers={**server.admin, "Content-Type": "application/x-ndjson"},
    )
    imported.raise_for_status()
    add(server, "compact-key", "a fresh memory that stays")
    page = studio.sign_in().page
    page.fill("#c-days", "10")
    page.fill("#c-key", "compact-key")
    page.click("#compact-form button[type=submit]")
    expect(page.locator("#compact-msg")).to_contain_text("Nothing has changed yet")
    assert page.inner_text("#compact-msg").startswith("2 memories would fold into")
    assert len(listed(server, "compact-key")) == 3
    page.click("#compact-go")
    page.click("#confirm-ok")
    expect(page.locator("#compact-msg")).to_contain_text("Compacted 2 memories")
    contents = [str(m["content"]) for m in listed(server, "compact-key")]
    assert "a fresh memory that stays" in contents
    assert len(contents) == 2 and any("Jenkins" in c and "Leeds" in c for c in contents)
