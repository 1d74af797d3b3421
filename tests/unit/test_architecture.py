"""The shape docs/architecture.md describes, held by tests: the import rules between
layers (import-linter, configured in pyproject.toml) and honest public names."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import engram
import shared

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_rules_hold():
    """No use case imports an adapter, adapters never call back up, the engine knows
    nothing of the HTTP glue, and the Lambda glue ships no developer tooling."""
    linter = Path(sys.executable).parent / "lint-imports"
    out = subprocess.run(
        [str(linter), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "broken" in out.stdout and " 0 broken" in out.stdout


def _packages(root: ModuleType) -> list[ModuleType]:
    found = [root]
    for info in pkgutil.walk_packages(root.__path__, root.__name__ + "."):
        if info.ispkg:
            found.append(importlib.import_module(info.name))
    return found


PACKAGES = _packages(engram) + _packages(shared)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.__name__)
def test_each_package_exports_exactly_its_public_names(package):
    """``__all__`` is the package's public surface: every public name it defines or
    re-exports is listed, and nothing listed is missing (submodules aside)."""
    public = {
        name
        for name, value in vars(package).items()
        if not name.startswith("_")
        and not inspect.ismodule(value)
        and name not in ("annotations", "TYPE_CHECKING")  # import-time helpers, not API
    }
    assert set(getattr(package, "__all__", ())) == public
