"""Cold init of the Lambda functions on the built layers, with and without bytecode.

Builds the engine and tracing layers with their Makefiles (as ``sam build`` does),
lays them out as Lambda's ``/opt`` and starts fresh CPython 3.12 processes the way a
cold Lambda instance imports a handler: the function's folder, ``/opt/python``, the
runtime's boto3; no site packages; ``-B`` since ``/opt`` is read-only on Lambda.

"before" is the same layer with every ``__pycache__`` removed, as the previous
``BuildMethod: python3.12`` build shipped it (so each cold start compiled every module
it imported); "after" is the layer as built now (``compileall``, unchecked-hash).
The two alternate, so the machine's noise hits both alike; the ratio is the figure.

Run: ``.venv/bin/python bench/cold_init.py [--starts 15]`` (needs a CPython 3.12:
pyenv's, or ``ENGRAM_PYTHON312``; builds take about a minute).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from shared.devtools.layer_build import (  # noqa: E402 - the repo root, added above
    build_layers,
    cold_start,
    lay_out,
    python312,
    runtime_packages,
)
from shared.devtools.template import load_template  # noqa: E402

FUNCTIONS = ("MemoryApiFunction", "ChatProxyFunction", "ExtractionWorkerFunction")
CODE = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"


def start(
    python: str, opt: Path, runtime: Path, code_uri: Path, module: str
) -> tuple[float, float]:
    """(handler import seconds, whole process seconds) of one cold start."""
    began = time.perf_counter()
    out = cold_start(python, opt, runtime, code_uri, CODE.format(module=module))
    out.check_returncode()
    return float(out.stdout.strip().splitlines()[-1]), time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--starts", type=int, default=15, help="cold starts per function/side")
    args = parser.parse_args()
    python = python312()
    if python is None:
        print("needs a CPython 3.12 (pyenv's, or ENGRAM_PYTHON312)", file=sys.stderr)
        return 2
    functions = load_template().functions()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print("building the engine and tracing layers with their Makefiles...", file=sys.stderr)
        built = build_layers(work, python, ["engram", "tracing"])
        runtime = runtime_packages(work / "runtime", python)
        after = lay_out([built["engram"], built["tracing"]], work / "after" / "opt")
        before = lay_out([built["engram"], built["tracing"]], work / "before" / "opt")
        for cache in list(before.rglob("__pycache__")):
            shutil.rmtree(cache)
        print(f"\ncold init on CPython 3.12, {args.starts} starts each (median seconds)")
        print(
            f"{'function':<26} {'import before':>13} {'import after':>12} {'ratio':>6}"
            f" {'process before':>14} {'process after':>13}"
        )
        for logical_id in FUNCTIONS:
            function = functions[logical_id]
            module = function.handler.rsplit(".", 1)[0]
            runs: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
            for _ in tqdm(range(args.starts), desc=logical_id, unit="start", leave=False):
                for side, opt in (("before", before), ("after", after)):
                    runs[side].append(start(python, opt, runtime, function.code_uri, module))
            imp = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
            proc = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
            print(
                f"{logical_id:<26} {imp['before']:>13.3f} {imp['after']:>12.3f}"
                f" {imp['after'] / imp['before']:>6.2f} {proc['before']:>14.3f}"
                f" {proc['after']:>13.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
