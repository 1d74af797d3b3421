"""Memory Studio's static routes: served without a token (they hold no data), with a
strict CSP, only the files shipped, and absent from the OpenAPI document."""

from __future__ import annotations

import re

import pytest

from shared.http.routers.studio import ASSETS, STATIC
from tests.support.lambda_support import LambdaContext, load_event, load_function


def test_the_root_redirects_to_the_studio(anonymous):
    response = anonymous.get("/", follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"] == "studio"
    assert anonymous.get("/").url.path == "/studio"


def test_the_page_is_served_without_a_token_and_with_a_strict_policy(anonymous):
    response = anonymous.get("/studio")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "<title>Memory Studio" in response.text
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert "unsafe" not in policy
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("name", "kind"),
    [("app.js", "text/javascript"), ("studio.css", "text/css"), ("memories.js", "text/javascript")],
)
def test_each_asset_is_served_with_its_type(anonymous, name, kind):
    response = anonymous.get(f"/studio/{name}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(kind)


@pytest.mark.parametrize(
    "path", ["/studio/nope.js", "/studio/..%2Frouters%2Fstudio.py", "/studio/.x"]
)
def test_only_the_shipped_files_are_served(anonymous, path):
    response = anonymous.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found_error"


def test_every_module_the_page_imports_is_shipped():
    """A module imported (or linked) but missing would break the page in a browser only."""
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r'from "\./([\w.-]+)"', text) + re.findall(
            r'"studio/([\w.-]+)"', text
        ):
            assert name in ASSETS, (path.name, name)


def test_nothing_is_loaded_from_elsewhere():
    """Works offline: no CDN, no remote font, no inline script (the CSP forbids them)."""
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(src|href)=\"(https?:)?//", text), path.name
        assert "import(" not in text, path.name
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<script[^>]*>", page) == ['<script type="module" src="studio/app.js">']


def test_other_methods_are_refused_with_the_allowed_one_named(anonymous):
    response = anonymous.post("/studio/app.js")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET"


def test_the_studio_is_not_part_of_the_api_document(app):
    paths = app.openapi()["paths"]
    assert not [p for p in paths if p == "/" or p.startswith("/studio")]


def test_the_memory_api_function_serves_the_studio(lambda_env):
    handler = load_function("memory_api").handler
    page = handler(load_event("memory_api_studio_page"), LambdaContext())
    assert page["statusCode"] == 200
    assert "<title>Memory Studio" in page["body"]
    script = handler(load_event("memory_api_studio_script"), LambdaContext())
    assert script["statusCode"] == 200
    assert script["headers"]["content-type"].startswith("text/javascript")
    assert script["body"] == (STATIC / "app.js").read_text(encoding="utf-8")
