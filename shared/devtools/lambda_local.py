"""Running functions without Docker: ``engram invoke`` and ``engram build-layer``.

``invoke`` loads a function the way Lambda does: a fresh Python process whose path
is the function's ``CodeUri`` then its layers (as ``/opt/python``), with the
template's environment (``!Ref`` to parameters resolved from their defaults or
``env.json``; unresolvable values left out) plus the ``env.json`` overrides in
``sam local invoke``'s format (``{"LogicalId": {...}, "Parameters": {...}}``). Every
function shares one local database by default, and nothing is written into a CodeUri.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .template import ROOT, load_template

__all__ = ["LOCAL_DB_URL", "build_layer", "invoke", "invoke_environment"]

_IGNORED = shutil.ignore_patterns("__pycache__")

_RUNNER = """
import importlib, json, sys, uuid
module_name, function_name = sys.argv[1].rsplit(".", 1)
handler = getattr(importlib.import_module(module_name), function_name)
class Context:
    function_name = sys.argv[2]
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:local:000000000000:function:" + sys.argv[2]
    aws_request_id = str(uuid.uuid4())
    def get_remaining_time_in_millis(self): return 30000
event = json.load(sys.stdin)
print("\\n" + json.dumps(handler(event, Context()), indent=2))
"""


def _resolve(value: Any, parameters: dict[str, str]) -> str | None:
    if isinstance(value, str | int | float | bool):
        return str(value)
    if isinstance(value, dict) and "Ref" in value:
        return parameters.get(value["Ref"])
    return None  # !Sub, !GetAtt...: needs a deployed stack


# One database for every function run locally (the one `engram serve` uses), so what one
# function writes the next one reads, as in a deployment. Never inside a CodeUri, which
# `sam build` would package.
LOCAL_DB_URL = f"file:{ROOT / '.engram' / 'engram.db'}"


def invoke_environment(logical_id: str, env_path: Path | None = None) -> dict[str, str]:
    """The environment ``engram invoke`` runs ``logical_id`` with (KeyError if unknown).

    Precedence, lowest first: this process's environment, the template's variables (``!Ref``
    to parameters from their defaults or env.json's ``Parameters``), env.json's entry for
    the function. ``ENGRAM_DB_URL`` falls back to :data:`LOCAL_DB_URL`, shared by all.
    """
    template = load_template()
    function = template.functions()[logical_id]
    overrides: dict[str, Any] = json.loads(env_path.read_text()) if env_path else {}
    parameters = {**template.parameter_defaults(), **overrides.get("Parameters", {})}
    env = dict(os.environ)
    for name, value in function.environment.items():
        resolved = _resolve(value, parameters)
        if resolved is not None:
            env[name] = resolved
    env.update({k: str(v) for k, v in overrides.get(logical_id, {}).items()})
    env.setdefault("ENGRAM_DB_URL", LOCAL_DB_URL)
    paths = [str(function.code_uri)] + [str(template.layer_dir(layer)) for layer in function.layers]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.setdefault("AWS_LAMBDA_FUNCTION_NAME", logical_id)
    env.setdefault("POWERTOOLS_TRACE_DISABLED", "true")  # no X-Ray daemon locally
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__ in the CodeUri either
    return env


def invoke(logical_id: str, event_path: Path, env_path: Path | None = None) -> int:
    functions = load_template().functions()
    if logical_id not in functions:
        print(f"no function {logical_id}; known: {', '.join(sorted(functions))}", file=sys.stderr)
        return 2
    function = functions[logical_id]
    # Relative paths (a file: URL in env.json) are taken from the checkout's root, whatever
    # the folder; -P keeps that folder off the import path, so imports come from the
    # CodeUri and the layers as in Lambda.
    result = subprocess.run(  # noqa: S603 - our interpreter, our runner, the template's handler
        [sys.executable, "-P", "-c", _RUNNER, function.handler, logical_id],
        input=event_path.read_text(),
        env=invoke_environment(logical_id, env_path),
        cwd=ROOT,
        check=False,
        text=True,
    )
    return result.returncode


def build_layer(layers_dir: Path | None = None) -> list[Path]:
    """Prepare the layers for ``sam build``: the shared glue (without this developer
    tooling) copied beside the engine, since functions import both from the layer, and
    the model files each layer ships (potion in the engine layer, MiniLM in the
    transformers layer, which Lambda merges into the same ``/opt/python/engram`` tree).

    In the checkout's ``layers/`` by default (where ``template.yaml`` points); into
    another folder, the layers' Makefiles, locks and engine package are copied there
    too, so it holds whole layers. The locks themselves are ``engram lock-layers``'.
    """
    from engram.adapters.embeddings.assets import DEFAULT_DIR, TRANSFORMERS_MODEL, fetch

    source = ROOT / "layers"
    layers_dir = layers_dir or source
    fetch()  # the model files, once, into the engine package's assets (make install did)
    if layers_dir.resolve() != source.resolve():
        for folder in source.iterdir():
            for name in ("Makefile", "requirements.txt"):
                (layers_dir / folder.name).mkdir(parents=True, exist_ok=True)
                shutil.copy2(folder / name, layers_dir / folder.name / name)
        _replace(source / "engram" / "engram", layers_dir / "engram" / "engram")
    _replace(
        ROOT / "shared",
        layers_dir / "engram" / "shared",
        shutil.ignore_patterns("__pycache__", "devtools"),
    )
    models = layers_dir / "transformers" / "models" / TRANSFORMERS_MODEL
    _replace(DEFAULT_DIR / TRANSFORMERS_MODEL, models)
    return [layers_dir / "engram" / "shared", models]


def _replace(source: Path, target: Path, ignore: Any = _IGNORED) -> None:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=ignore)
