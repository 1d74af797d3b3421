"""``make sam-build``: the real ``sam build`` and ``sam validate --lint`` on a copy of
the checkout, as a team deploying it would run them (without Docker: the Makefiles and
SAM's Python builder run on this machine's CPython 3.12). Then, on what was built:

- the questions ``sam deploy --guided`` would ask that the template leaves unanswered,
  by the SAM CLI's own code (``sam_guided.py``): none may remain;
- checkov on the template as CloudFormation receives it (after SAM's transform, which
  adds the Function URL, roles and permissions the written template does not show);
- each function's unzipped size with its layers against Lambda's 250 MiB, worst
  optional layer included, and the headroom left.

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
from .template import ROOT, load_template

SAM_CLI = "aws-sam-cli==1.170.0"
SAM_VENV = ROOT / ".venv-sam"

MIB = 2**20
LAMBDA_LIMIT = 250 * MIB  # a function unzipped, its layers included
HEADROOM = 15 * MIB  # what every function must leave for growth
# The AWS Lambda Web Adapter's layer (the streamed chat's) cannot be downloaded here: an
# allowance above its release binary's size (~5 MB).
WEB_ADAPTER = 8 * MIB
# Optional layers a deployment may add to every function: the template's Rules allow one
# of them (OneOptionalLayer), and only Qdrant's beside the MCP layer (McpWithoutTransformers).
OPTIONAL = ("TransformersLayer", "QdrantLayer")
BESIDE_MCP = ("QdrantLayer",)


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
        _guided_and_transformed(checkout, env)
        failures = _sizes(checkout, built)
    return 1 if failures else 0


def _guided_and_transformed(checkout: Path, env: dict[str, str]) -> None:
    transformed = checkout / "transformed.json"
    # By path: the SAM CLI's venv has none of Engram's packages to import.
    guided = [str(SAM_VENV / "bin" / "python"), str(checkout / "shared/devtools/sam_guided.py")]
    print("$ sam deploy --guided's checks, SAM's transform", file=sys.stderr)
    subprocess.run(  # noqa: S603 - our own module in the SAM CLI's venv
        [*guided, "template.yaml", str(transformed)],
        cwd=checkout,
        env={**env, "AWS_DEFAULT_REGION": "eu-west-1"},
        check=True,
    )
    checkov = Path(sys.executable).parent / "checkov"
    print("$ checkov on the transformed template", file=sys.stderr)
    subprocess.run(  # noqa: S603 - the dev venv's checkov
        [
            str(checkov),
            *("--file", str(transformed), "--framework", "cloudformation"),
            *("--quiet", "--compact", "--skip-download"),
        ],
        check=True,
    )


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _sizes(checkout: Path, built: Path) -> list[str]:
    """Print each function's worst unzipped size and its headroom; the ones over."""
    size = {d.name: _size(d) for d in built.iterdir() if d.is_dir()}
    failures = []
    print(f"{'function':<28} {'MiB':>7} {'headroom':>9}   (with its layers, worst optional)")
    functions = load_template(checkout / "template.yaml").functions()
    for logical_id, function in sorted(functions.items()):
        total = size[logical_id] + sum(size.get(layer, 0) for layer in function.layers)
        optional = BESIDE_MCP if "McpLayer" in function.layers else OPTIONAL
        total += max(size.get(layer, 0) for layer in optional)
        if function.handler.endswith(".sh"):  # the streamed chat: the Web Adapter's layer
            total += WEB_ADAPTER
        left = LAMBDA_LIMIT - total
        print(f"{logical_id:<28} {total / MIB:7.1f} {left / MIB:8.1f}")
        if left < HEADROOM:
            failures.append(logical_id)
    for name in sorted(n for n in size if n.endswith("Layer")):
        print(f"{name:<28} {size[name] / MIB:7.1f}")
    if failures:
        print(f"under {HEADROOM // MIB} MiB of headroom: {', '.join(failures)}", file=sys.stderr)
    return failures


if __name__ == "__main__":
    raise SystemExit(main())
