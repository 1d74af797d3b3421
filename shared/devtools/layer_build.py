"""The layers built as ``sam build`` builds them, and laid out as Lambda lays them out.

``sam build`` copies each layer's ``ContentUri`` to a scratch folder and runs
``make build-<LogicalId>`` there with ``ARTIFACTS_DIR`` set; Lambda then extracts each
layer of a function, in order, into ``/opt``, later files over earlier ones, so folders
merge (the transformers layer's MiniLM files land inside the engine layer's
``engram/`` package). The layer tests and ``bench/cold_init.py`` use both steps on the
real Makefiles and locks, with a CPython 3.12 like the runtime's.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

from .lambda_local import build_layer

__all__ = [
    "build_function",
    "build_layers",
    "cold_start",
    "lay_out",
    "python312",
    "runtime_packages",
]


def python312() -> str | None:
    """A CPython 3.12 interpreter (the runtime's version), or None on this machine."""
    candidates = [os.environ.get("ENGRAM_PYTHON312"), shutil.which("python3.12")]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3.12")))
    for candidate in filter(None, candidates):
        probe = subprocess.run(  # noqa: S603 - an interpreter found on this machine
            [candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 12))"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.stdout.strip() == "True":
            return candidate
    return None


def build_layers(into: Path, python: str, folders: list[str]) -> dict[str, Path]:
    """Build ``layers/<folder>`` for each folder with its Makefile, as ``sam build`` does;
    returns each layer's built root (what the layer zip holds)."""
    source = into / "source"
    build_layer(source)  # the checkout's layers with the glue and models in place
    return {folder: _make(source / folder, into / "built" / folder, python) for folder in folders}


def build_function(into: Path, python: str, code_uri: Path) -> Path:
    """Build a function whose template entry says ``BuildMethod: makefile``."""
    source = into / "source" / code_uri.name
    shutil.copytree(code_uri, source, ignore=shutil.ignore_patterns("__pycache__"))
    return _make(source, into / "built" / code_uri.name, python)


def _make(source: Path, artifacts: Path, python: str) -> Path:
    match = re.search(r"^(build-\w+):", (source / "Makefile").read_text(), re.MULTILINE)
    if match is None:
        raise RuntimeError(f"{source}/Makefile has no build-<LogicalId> target")
    subprocess.run(  # noqa: S603 - make, the folder's own Makefile
        ["make", "-s", match[1], f"ARTIFACTS_DIR={artifacts}", f"PYTHON={python}"],  # noqa: S607
        cwd=source,
        check=True,
    )
    return artifacts


def lay_out(layers: list[Path], opt: Path) -> Path:
    """``/opt`` as Lambda makes it from ``layers``, in the function's order. Lambda's
    ``/opt`` is read-only: run Python over it with ``-B`` (no bytecode written), since
    permissions do not stop root."""
    for layer in layers:
        shutil.copytree(layer, opt, dirs_exist_ok=True)
    return opt


def runtime_packages(into: Path, python: str) -> Path:
    """What the Lambda Python runtime itself ships beside the standard library (boto3 and
    botocore, in ``/var/runtime``, after ``/opt/python`` on its path), compiled as there."""
    subprocess.run(  # noqa: S603 - the given interpreter's pip, a fixed requirement
        [python, "-m", "pip", "install", "--quiet", "--target", str(into), "boto3"],
        check=True,
    )
    return into


def cold_start(
    python: str, opt: Path, runtime: Path, code_uri: Path, code: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh process as a cold Lambda instance runs it: the function's
    folder, ``/opt/python``, the runtime's own packages; no site packages; ``-B`` because
    ``/opt`` is read-only there. ``env`` adds to a minimal Lambda-like environment."""
    environment = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": os.pathsep.join([str(code_uri), str(opt / "python"), str(runtime)]),
        "ENGRAM_DB_URL": f"file:{opt.parent / 'engram.db'}",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "AWS_LAMBDA_FUNCTION_NAME": "ColdStart",
        "AWS_DEFAULT_REGION": "us-east-1",
        **env,
    }
    return subprocess.run(  # noqa: S603 - a 3.12 interpreter, the caller's own code
        [python, "-S", "-s", "-B", "-c", code],
        cwd=opt.parent,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
