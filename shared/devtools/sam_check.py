"""``make sam-build``: the real ``sam build`` and ``sam validate --lint`` on a copy of
the checkout, as a team deploying it would run them (without Docker: the Makefiles and
SAM's Python builder run on this machine's CPython 3.12).

The SAM CLI gets a virtual environment of its own (``.venv-sam``): its pinned
dependencies clash with the dev tools'. The copy holds the tracked files only, so
nothing the build writes (``.aws-sam/``, the glue and models ``engram build-layer``
puts into ``layers/``) lands in the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

from .lambda_local import build_layer
from .layer_build import python312
from .template import ROOT

SAM_CLI = "aws-sam-cli==1.170.0"
SAM_VENV = ROOT / ".venv-sam"


def _sam() -> Path:
    sam = SAM_VENV / "bin" / "sam"
    if not sam.exists():
        print(f"installing {SAM_CLI} into {SAM_VENV.name}/ ...", file=sys.stderr)
        venv.create(SAM_VENV, with_pip=True)
        pip = [str(SAM_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", SAM_CLI]
        subprocess.run(pip, check=True)  # noqa: S603 - a pinned requirement
    return sam


def _copy_checkout(into: Path) -> None:
    files = subprocess.run(
        ["git", "ls-files", "-z"],  # noqa: S607 - git on PATH
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = ROOT / name.decode()
        if source.is_file():
            target = into / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
            target.chmod(source.stat().st_mode)


def main() -> int:
    python = python312()
    if python is None:
        print("sam build skipped: no CPython 3.12 on this machine (the runtime's)")
        return 0
    sam = _sam()
    env = {**os.environ, "SAM_CLI_TELEMETRY": "0"}
    env["PATH"] = os.pathsep.join([str(Path(python).parent), env["PATH"]])
    with tempfile.TemporaryDirectory() as tmp:
        checkout = Path(tmp)
        _copy_checkout(checkout)
        build_layer(checkout / "layers")
        for command in (
            [str(sam), "build", "--no-cached"],
            [str(sam), "validate", "--lint"],
        ):
            print("$ sam " + " ".join(command[1:]), file=sys.stderr)
            subprocess.run(command, cwd=checkout, env=env, check=True)  # noqa: S603
        built = checkout / ".aws-sam" / "build"
        for artifact in sorted(built.iterdir()):
            if artifact.is_dir():
                size = sum(p.stat().st_size for p in artifact.rglob("*") if p.is_file())
                print(f"{artifact.name:<28} {size / 2**20:7.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
