"""The interactive API reference at ``/docs``, served without a network.

FastAPI's own ``/docs`` page loads Swagger UI from a CDN: offline (a laptop on a plane,
a locked-down host) it is a blank page. Here the same page takes Swagger UI's script and
stylesheet from the ``fastapi-swagger`` package, which ships a current build of it, and
serves them beside the page. Only the local server needs it: API Gateway routes no
``/docs``, so the Lambda layer leaves the package out (``shared/devtools/layer_lock.py``)
and ``create_app`` then serves no reference.
"""

from __future__ import annotations

import importlib.util

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

__all__ = ["ASSETS", "DOCS", "install_api_docs"]

DOCS = "/docs"
ASSETS = "/docs/assets"
_PACKAGE = "fastapi_swagger"


def install_api_docs(app: FastAPI) -> bool:
    """Serve ``/docs`` and its assets from the installed package; False without it."""
    if importlib.util.find_spec(_PACKAGE) is None:
        return False
    # Plain routes, outside the OpenAPI document and the template's routes.
    app.mount(ASSETS, StaticFiles(packages=[(_PACKAGE, "resources")]), name="api-docs-assets")

    async def page(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} API reference",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon-32x32.png",
        )

    app.add_route(DOCS, page, include_in_schema=False)
    return True
