import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_installed():
    """pyproject lists packages explicitly (see the comment there); none may be missing."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = set()
    for top, folder in setuptools["package-dir"].items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            relative = init.parent.relative_to(base).parts
            found.add(".".join((top, *relative)))
    assert set(setuptools["packages"]) == found
