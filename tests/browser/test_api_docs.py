"""/docs, the interactive API reference, renders with the network off: Swagger UI's
script and stylesheet come from the server itself (shared/http/api_docs.py)."""

from __future__ import annotations

from urllib.parse import urlsplit


def test_the_api_reference_renders_with_nothing_but_the_server(browser, server):
    context = browser.new_context()
    page = context.new_page()
    local = urlsplit(server.base).netloc
    refused: list[str] = []

    def offline(route):  # every request that would leave the machine fails, as offline
        if urlsplit(route.request.url).netloc == local:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort("internetdisconnected")

    page.route("**/*", offline)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{server.base}/docs")
        page.wait_for_selector("#swagger-ui .opblock", timeout=20_000)
        operations = page.locator("#swagger-ui .opblock-summary-path").all_inner_texts()
        assert "/v1/chat/completions" in operations and "/api/memory" in operations
        assert "Engram" in page.locator("#swagger-ui .title").inner_text()
    finally:
        context.close()
    assert refused == [] and errors == []
