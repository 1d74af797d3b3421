"""Memory Studio: the web dashboard's static files, at ``/studio`` (``/`` redirects there).

The page is plain HTML, CSS and ES modules from ``shared/http/studio/``; everything it
shows comes from the REST API, called by the browser with the admin token it keeps in
``sessionStorage``. These routes need no token (they hold no data) and are left out of
the OpenAPI document: they are not part of the API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, RedirectResponse

from engram import NotFoundError

__all__ = ["ASSETS", "router"]

STATIC = Path(__file__).resolve().parents[1] / "studio"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
# Only these files are served: a fixed list read once, never a path built from a request.
ASSETS = {
    p.name: p for p in STATIC.iterdir() if p.is_file() and p.suffix in _TYPES and p.name[0] != "."
}
# The page loads nothing from elsewhere and runs no inline script; API calls go to its own
# origin. The token never leaves through a referrer or a frame.
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:;"
        " connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

router = APIRouter(include_in_schema=False)


def _file(name: str) -> FileResponse:
    path = ASSETS.get(name)
    if path is None:
        raise NotFoundError(f"no studio file {name}", field="name")
    return FileResponse(path, media_type=_TYPES[path.suffix], headers=_HEADERS)


@router.get("/")
def root() -> RedirectResponse:
    # Relative: behind an API Gateway stage (/prod/) it still lands on that stage's page.
    return RedirectResponse("studio", status_code=302)


@router.get("/studio")
def studio() -> FileResponse:
    return _file("index.html")


@router.get("/studio/{name}")
def studio_file(name: Annotated[str, PathParam(max_length=64)]) -> FileResponse:
    return _file(name)
