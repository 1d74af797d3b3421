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
    # Folders of data files only (no __init__.py) are packages too, as setuptools wants
    # them listed: each has its package-data line.
    data_only = set(setuptools["package-data"]) - found
    assert set(setuptools["packages"]) == found | data_only
    for package in data_only:
        top, *rest = package.split(".")
        assert (ROOT / setuptools["package-dir"][top]).joinpath(*rest).is_dir(), package
