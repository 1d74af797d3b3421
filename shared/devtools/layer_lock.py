"""The Lambda layers' lock files: ``engram lock-layers``.

Each layer's ``requirements.txt`` is a lock: every package it installs, pinned to one
version with the sha256 of the one wheel pip picks for CPython 3.12 on manylinux
x86_64 (the runtime ``template.yaml`` targets). The layer Makefiles install it with
``--no-deps --require-hashes``, so a build installs exactly what was locked, nothing
resolved on the day.

Locking resolves the layer's requirements from ``pyproject.toml`` with pip (for that
platform, whatever the machine) and keeps the packages reachable from them, except:
- what another layer every function has already ships (the engine layer's lock is a
  constraint for the optional layers, so the versions agree, and is then left out);
- what the Lambda runtime ships (boto3, botocore and the packages only they need);
- what is never imported on Lambda, with the reason in :data:`LAYERS`, e.g. tokenizers'
  Hugging Face hub client (Engram loads tokenizer files, it never downloads models).

Offline, :func:`check_lock` says whether a lock still satisfies ``pyproject.toml``; the
tests run it, so a changed dependency without a new lock fails CI.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.markers import default_environment
from packaging.requirements import Requirement

from .template import ROOT

__all__ = [
    "CHAT_STREAM",
    "LAYERS",
    "LOCKED",
    "Layer",
    "LockedPackage",
    "check_lock",
    "lock_layers",
    "read_lock",
]

PLATFORM_ARGS = (
    "--only-binary=:all:",
    "--platform",
    "manylinux2014_x86_64",
    "--platform",
    "manylinux_2_28_x86_64",
    "--python-version",
    "3.12",
    "--implementation",
    "cp",
)
HEADER = (
    "# Locked by `engram lock-layers` from pyproject.toml for CPython 3.12, manylinux x86_64;\n"
    "# installed with --no-deps --require-hashes by this layer's Makefile. Do not edit.\n"
)
# The Lambda Python runtime ships boto3 and botocore (and what only they need).
RUNTIME = frozenset({"boto3", "botocore", "s3transfer"})


@dataclass(frozen=True)
class Layer:
    folder: str  # <parent>/<folder>
    requirements: tuple[str, ...]  # names in pyproject (dependencies or an extra)
    extra: str | None = None  # the pyproject extra the names are in
    # package -> why it is not installed (nor what only it needs)
    dropped: tuple[tuple[str, str], ...] = ()
    parent: str = "layers"

    @property
    def lock(self) -> Path:
        return ROOT / self.parent / self.folder / "requirements.txt"


# boto3 ships with the runtime; uvicorn and fastapi-swagger (/docs) serve locally only;
# pyyaml and packaging are for these tools; mcp and aws-xray-sdk have layers of their own.
ENGINE_NOT_IN_LAYER = frozenset(
    {"boto3", "uvicorn", "fastapi-swagger", "pyyaml", "packaging", "mcp", "aws-xray-sdk"}
)
LAYERS: tuple[Layer, ...] = (
    Layer(
        "engram",
        (),  # every dependency but ENGINE_NOT_IN_LAYER
        dropped=(
            (
                "huggingface-hub",
                "tokenizers needs it to download models; Engram reads tokenizer.json files",
            ),
            (
                "pycparser",
                "cffi parses C declarations with it; PyNaCl's module is compiled, never parsed",
            ),
        ),
    ),
    Layer(
        "transformers",
        ("onnxruntime",),
        "transformers",
        dropped=tuple(
            (name, "onnxruntime imports it for training, export or its CLI, never inference")
            for name in ("coloredlogs", "flatbuffers", "protobuf", "sympy", "packaging")
        ),
    ),
    Layer("qdrant", ("qdrant-client",), "qdrant"),
    Layer("mcp", ("mcp",)),
    Layer("tracing", ("aws-xray-sdk",)),
)
# The streaming chat function ships uvicorn itself (the Lambda Web Adapter runs it).
CHAT_STREAM = Layer("chat_stream", ("uvicorn",), parent="functions")
LOCKED = (*LAYERS, CHAT_STREAM)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class LockedPackage:
    name: str  # canonical
    version: str
    sha256: str

    def line(self) -> str:
        return f"{self.name}=={self.version} --hash=sha256:{self.sha256}"


_LINE = re.compile(
    r"^(?P<name>[A-Za-z0-9._-]+)==(?P<version>\S+) --hash=sha256:(?P<sha>[0-9a-f]{64})$"
)


def read_lock(path: Path) -> dict[str, LockedPackage]:
    """The packages of a lock file (ValueError on a line that is not a hashed pin)."""
    locked: dict[str, LockedPackage] = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if not match:
            raise ValueError(f"{path}:{number}: not `name==version --hash=sha256:...`: {line}")
        name = _canonical(match["name"])
        locked[name] = LockedPackage(name, match["version"], match["sha"])
    return locked


def _pyproject_requirements(layer: Layer) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pool = (
        project["dependencies"]
        if layer.extra is None
        else project["optional-dependencies"][layer.extra]
    )
    requirements = [Requirement(r) for r in pool]
    if not layer.requirements:
        return [r for r in requirements if _canonical(r.name) not in ENGINE_NOT_IN_LAYER]
    wanted = {_canonical(n) for n in layer.requirements}
    return [r for r in requirements if _canonical(r.name) in wanted]


def check_lock(layer: Layer, path: Path | None = None) -> list[str]:
    """What is wrong with ``layer``'s lock against pyproject.toml (empty when it holds)."""
    path = path or layer.lock
    try:
        locked = read_lock(path)
    except (OSError, ValueError) as exc:
        return [str(exc)]
    problems = []
    for requirement in _pyproject_requirements(layer):
        pinned = locked.get(_canonical(requirement.name))
        if pinned is None:
            problems.append(f"{layer.folder}: {requirement.name} is not locked")
        elif not requirement.specifier.contains(pinned.version, prereleases=True):
            problems.append(
                f"{layer.folder}: {requirement.name}=={pinned.version} is outside {requirement}"
            )
    for name, _why in layer.dropped:
        if _canonical(name) in locked:
            problems.append(f"{layer.folder}: {name} is locked but should be dropped")
    return problems


def _resolve(requirements: Iterable[str], constraints: Path | None) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed"]
        command += ["--quiet", "--report", str(report), "--target", str(Path(tmp) / "t")]
        command += [*PLATFORM_ARGS]
        if constraints is not None:
            command += ["--constraint", str(constraints)]
        command += list(requirements)
        subprocess.run(command, check=True)  # noqa: S603 - our interpreter, pinned arguments
        items: list[dict[str, Any]] = json.loads(report.read_text())["install"]
        return items


def _reachable(
    items: list[dict[str, Any]], roots: list[Requirement], stop: frozenset[str]
) -> set[str]:
    """Canonical names reachable from ``roots`` (with their extras), not through ``stop``."""
    metadata = {_canonical(i["metadata"]["name"]): i["metadata"] for i in items}
    environment: dict[str, str] = {**default_environment(), "python_version": "3.12"}
    environment |= {"python_full_version": "3.12.0", "sys_platform": "linux"}
    environment |= {"platform_system": "Linux", "platform_machine": "x86_64"}
    seen: set[tuple[str, str]] = set()
    kept: set[str] = set()
    pending = [(_canonical(r.name), extra) for r in roots for extra in ("", *r.extras)]
    while pending:
        name, extra = pending.pop()
        if (name, extra) in seen or name in stop or name not in metadata:
            continue
        seen.add((name, extra))
        kept.add(name)
        for spec in metadata[name].get("requires_dist", []):
            requirement = Requirement(spec)
            if requirement.marker is not None and not requirement.marker.evaluate(
                {**environment, "extra": extra}
            ):
                continue
            if requirement.marker is None and extra:
                continue  # already followed without the extra
            child = _canonical(requirement.name)
            pending += [(child, e) for e in ("", *requirement.extras)]
    return kept


def _lock(layer: Layer, engine: dict[str, LockedPackage] | None) -> list[LockedPackage]:
    roots = _pyproject_requirements(layer)
    constraints = None
    with tempfile.TemporaryDirectory() as tmp:
        if engine is not None:  # the optional layers resolve against the engine's versions
            constraints = Path(tmp) / "engine.txt"
            constraints.write_text("".join(f"{p.name}=={p.version}\n" for p in engine.values()))
        items = _resolve([str(r) for r in roots], constraints)
    stop = RUNTIME | {_canonical(name) for name, _ in layer.dropped}
    keep = _reachable(items, roots, stop) - set(engine or {})
    packages = []
    for item in items:
        name = _canonical(item["metadata"]["name"])
        if name in keep:
            sha = item["download_info"]["archive_info"]["hashes"]["sha256"]
            packages.append(LockedPackage(name, item["metadata"]["version"], sha))
    return sorted(packages, key=lambda p: p.name)


def lock_layers() -> list[Path]:
    """Resolve and write every lock (needs PyPI); returns the files written."""
    written = []
    engine: dict[str, LockedPackage] | None = None
    for layer in LOCKED:
        packages = _lock(layer, engine)
        path = layer.lock
        notes = "".join(f"# not installed: {name} ({why})\n" for name, why in layer.dropped)
        path.write_text(HEADER + notes + "".join(f"{p.line()}\n" for p in packages))
        print(f"locked {layer.folder}: {len(packages)} packages", file=sys.stderr)
        written.append(path)
        if layer.folder == "engram":
            engine = {p.name: p for p in packages}
    return written
