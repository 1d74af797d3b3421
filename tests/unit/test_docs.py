"""The documentation says what the code does: every setting is documented, the README's
first screen holds what a newcomer needs, and the site's generated parts list what is
there. (`make docs` builds the site with --strict in CI: broken links fail there.)"""

from __future__ import annotations

from pathlib import Path

from engram.config import Config
from shared.devtools import docs_hooks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_every_environment_variable_is_in_the_configuration_page():
    page = (DOCS / "configuration.md").read_text()
    # AWS_LAMBDA_FUNCTION_NAME is Lambda's own, read to tell where the process runs.
    aliases = {
        f.alias
        for f in Config.model_fields.values()
        if f.alias and f.alias.startswith(("ENGRAM_", "MEMORY_"))
    }
    missing = sorted(a for a in aliases if f"`{a}`" not in page)
    assert aliases and not missing, f"undocumented settings: {missing}"


def test_the_readme_is_short_and_its_first_screen_has_the_commands_proxy_and_mcp():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 150
    first_screen = "\n".join(lines[:75])
    for needed in ("make serve", "make test", "ENGRAM_UPSTREAM_BASE_URL", '"mcpServers"'):
        assert needed in first_screen, needed


def test_the_readme_links_only_to_pages_that_exist():
    text = (ROOT / "README.md").read_text()
    targets = [part.split(")", 1)[0] for part in text.split("](")[1:]]
    local = [t.split("#", 1)[0] for t in targets if not t.startswith("http")]
    assert local and all((ROOT / t).is_file() for t in local), local


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_decision_records_join_the_nav_and_the_index_by_themselves(tmp_path):
    _write(tmp_path / "decisions" / "index.md", "# Decisions\n")
    _write(
        tmp_path / "decisions" / "storage-streams.md",
        "# One stream per thread\n- Status: Accepted\n",
    )
    _write(
        tmp_path / "decisions" / "retrieval-sqlite-vec.md",
        "# Vectors in SQL\n- Status: Rejected\n",
    )
    config = {
        "docs_dir": str(tmp_path),
        "nav": [{"Home": "index.md"}, {"Reference": [{"Decisions": "decisions/index.md"}]}],
    }
    nav = docs_hooks.on_config(config)["nav"]
    assert nav[1]["Reference"][0]["Decisions"] == [
        "decisions/index.md",
        "decisions/retrieval-sqlite-vec.md",
        "decisions/storage-streams.md",
    ]
    listing = docs_hooks.on_page_markdown(
        "intro\n\n<!-- decisions -->\n", None, {"docs_dir": str(tmp_path)}, None
    )
    assert "- [Vectors in SQL](retrieval-sqlite-vec.md) (Rejected)" in listing
    assert "- [One stream per thread](storage-streams.md)\n" in listing + "\n"
    assert "## Retrieval" in listing and "## Storage" in listing


def test_the_rest_reference_is_rendered_from_the_apps_openapi_document():
    page = docs_hooks.on_page_markdown("<!-- openapi -->", None, {"docs_dir": "docs"}, None)
    assert "<!-- openapi -->" not in page
    for path in ("/api/memory/retrieve-preview", "/v1/chat/completions", "/api/keys"):
        assert path in page
