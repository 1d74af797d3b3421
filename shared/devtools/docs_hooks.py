"""MkDocs hooks for the documentation site (mkdocs.yml): pages generated from what the
code and the files say, so they cannot drift from them.

- ``<!-- openapi -->`` in a page becomes the REST reference, rendered from the app's own
  OpenAPI document by essentials-openapi (the routes, parameters, bodies and every
  status each route answers).
- The decision records under ``docs/decisions/`` join the navigation by themselves, and
  ``<!-- decisions -->`` becomes their list (title and status), so adding a record is
  adding a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

OPENAPI_MARKER = "<!-- openapi -->"
DECISIONS_MARKER = "<!-- decisions -->"
DECISIONS = "decisions"


def _records(docs_dir: Path) -> list[Path]:
    return sorted(p for p in (docs_dir / DECISIONS).glob("*.md") if p.name != "index.md")


def _heading(path: Path) -> tuple[str, str]:
    """A record's title (its first ``# `` line) and status (its ``- Status:`` line)."""
    title = status = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# ") and title is None:
            title = line[2:].strip()
        elif line.lower().startswith("- status:") and status is None:
            status = line.split(":", 1)[1].strip()
    return title or path.stem, status or ""


def on_config(config: Any) -> Any:
    """Lists every decision record under the Decisions entry of the navigation."""
    docs_dir = Path(config["docs_dir"])
    records = [f"{DECISIONS}/{p.name}" for p in _records(docs_dir)]

    def walk(items: list[Any]) -> None:
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            ((title, value),) = item.items()
            if value == f"{DECISIONS}/index.md":
                items[i] = {title: [f"{DECISIONS}/index.md", *records]}
            elif isinstance(value, list):
                walk(value)

    walk(config["nav"])
    return config


def _decisions_list(docs_dir: Path) -> str:
    # Links are relative to decisions/index.md, the page the marker is in.
    by_area: dict[str, list[str]] = {}
    for path in _records(docs_dir):
        area = path.stem.split("-", 1)[0].capitalize()
        title, status = _heading(path)
        suffix = f" ({status})" if status and not status.startswith("Accepted") else ""
        by_area.setdefault(area, []).append(f"- [{title}]({path.name}){suffix}")
    return "\n\n".join(f"## {area}\n\n" + "\n".join(lines) for area, lines in by_area.items())


def _openapi_reference() -> str:
    # Imported here: only the page that asks for it pays for building the app.
    from openapidocs.mk.v3 import OpenAPIV3DocumentationHandler

    from shared.http.app import create_app

    spec = create_app().openapi()
    return str(OpenAPIV3DocumentationHandler(spec, style="MKDOCS").write())


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if OPENAPI_MARKER in markdown:
        markdown = markdown.replace(OPENAPI_MARKER, _openapi_reference())
    if DECISIONS_MARKER in markdown:
        markdown = markdown.replace(DECISIONS_MARKER, _decisions_list(Path(config["docs_dir"])))
    return markdown
