"""The layers as ``sam build`` builds them (their Makefiles, their locks), laid out in
``/opt`` as Lambda does, run on CPython 3.12 with nothing else on the path."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from shared.devtools.layer_build import (
    build_function,
    build_layers,
    cold_start,
    lay_out,
    python312,
    runtime_packages,
)
from shared.devtools.layer_lock import LAYERS, LOCKED, check_lock, read_lock

# One limit, headroom and Web Adapter allowance for this test and `make sam-build`.
from shared.devtools.sam_check import HEADROOM, LAMBDA_LIMIT, WEB_ADAPTER
from shared.devtools.template import ROOT, load_template

PYTHON = python312()
FUNCTIONS = load_template().functions()
MINILM = Path("engram/adapters/embeddings/assets/all-MiniLM-L6-v2")

needs_312 = pytest.mark.skipif(PYTHON is None, reason="needs a CPython 3.12, the runtime's")


def test_every_lock_satisfies_pyproject_and_pins_hashed_wheels():
    for layer in LOCKED:
        assert check_lock(layer) == [], layer.folder
    locks = {x.folder: read_lock(x.lock) for x in LOCKED}
    engine = set(locks.pop("engram"))
    for folder, packages in locks.items():  # each package ships once, in one layer
        assert not engine & set(packages), folder
    assert {"huggingface-hub", "hf-xet", "boto3", "botocore"}.isdisjoint(engine)


def test_a_stale_lock_is_reported(tmp_path):
    engine = next(layer for layer in LAYERS if layer.folder == "engram")
    lines = (ROOT / "layers" / "engram" / "requirements.txt").read_text().splitlines()
    stale = tmp_path / "requirements.txt"
    stale.write_text("\n".join(line for line in lines if not line.startswith("numpy==")))
    assert check_lock(engine, stale) == ["engram: numpy is not locked"]
    stale.write_text("\n".join(lines).replace("pydantic==2.", "pydantic==1."))
    assert any("outside pydantic" in p for p in check_lock(engine, stale))
    stale.write_text("\n".join([*lines, "huggingface-hub==1.0 --hash=sha256:" + "0" * 64]))
    assert check_lock(engine, stale) == ["engram: huggingface-hub is locked but should be dropped"]
    stale.write_text("numpy>=2\n")
    assert "not `name==version --hash=sha256:...`" in check_lock(engine, stale)[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if PYTHON is None:
        pytest.skip("needs a CPython 3.12, the runtime's")
    folders = [layer.folder for layer in LAYERS]
    into = tmp_path_factory.mktemp("sam")
    built = build_layers(into, PYTHON, folders)
    built["runtime"] = runtime_packages(into / "runtime", PYTHON)
    built["chat_stream"] = build_function(into, PYTHON, FUNCTIONS["ChatStreamFunction"].code_uri)
    return built


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _run(opt: Path, code_uri: Path, code: str) -> subprocess.CompletedProcess[str]:
    runtime = opt.parent / "runtime"
    token = {"ENGRAM_ADMIN_TOKEN": "test-admin-token"}  # the events' token
    return cold_start(PYTHON, opt, runtime, code_uri, code, **token)  # type: ignore[arg-type]


@needs_312
@pytest.mark.slow
def test_each_function_runs_on_the_built_layers_with_precompiled_bytecode(built, tmp_path):
    opt = lay_out([built["engram"], built["tracing"], built["transformers"]], tmp_path / "opt")
    (tmp_path / "runtime").symlink_to(built["runtime"])
    assert (opt / "python" / MINILM / "model.onnx").is_file()  # merged from its own layer
    assert not (built["engram"] / "python" / MINILM).exists()
    for logical_id, function in sorted(FUNCTIONS.items()):
        if function.handler.endswith(".sh") or logical_id == "McpFunction":
            continue  # run.sh: test_streaming.py; MCP: its own layer, below
        module, attribute = function.handler.rsplit(".", 1)
        out = _run(
            opt,
            function.code_uri,
            f"import sys, {module}, engram.app.retrieval as r;"
            f"assert callable({module}.{attribute});"
            "assert r.__spec__.cached and __import__('os').path.isfile(r.__spec__.cached);"
            "assert 'huggingface_hub' not in sys.modules",
        )
        assert out.returncode == 0, (logical_id, out.stderr)
    health = json.loads((ROOT / "events" / "memory_api_health.json").read_text())
    api = FUNCTIONS["MemoryApiFunction"]
    module, attribute = api.handler.rsplit(".", 1)
    out = _run(
        opt,
        api.code_uri,
        "import json, sys\n"
        f"from {module} import {attribute} as handler\n"
        "class Context:\n"
        "    function_name = 'MemoryApiFunction'; aws_request_id = 'layer-check'\n"
        "    invoked_function_arn = 'arn:aws:lambda:us-east-1:000000000000:function:x'\n"
        "    memory_limit_in_mb = 1024; function_version = '$LATEST'\n"
        f"response = handler(json.loads({json.dumps(json.dumps(health))}), Context())\n"
        "print(response['statusCode'])\n"
        "from engram.adapters.embeddings.assets import DEFAULT_DIR\n"
        "from engram.adapters.embeddings.onnx import TransformersEmbedder\n"
        "from engram.adapters.embeddings.static import StaticEmbedder\n"
        "for cls, name in ((TransformersEmbedder, 'all-MiniLM-L6-v2'),"
        " (StaticEmbedder, 'potion-base-8M')):\n"
        "    vectors = cls(DEFAULT_DIR / name, name).embed(['the layer works'])\n"
        "    print(name, len(vectors[0]))\n",
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert "200" in lines
    assert "all-MiniLM-L6-v2 384" in lines
    assert "potion-base-8M 256" in lines


@needs_312
@pytest.mark.slow
def test_the_streaming_function_starts_uvicorn_from_its_build(built, tmp_path):
    opt = lay_out([built["engram"], built["tracing"]], tmp_path / "opt")
    (tmp_path / "runtime").symlink_to(built["runtime"])
    function = built["chat_stream"]
    assert (function / "run.sh").is_file() and not (function / "Makefile").exists()
    out = _run(
        opt,
        function,
        "import uvicorn.main, app, h11, os;"
        "assert h11.__file__.startswith(os.environ['PYTHONPATH'].split(os.pathsep)[1]);"
        "assert app.__spec__.cached and os.path.isfile(app.__spec__.cached);"
        "print(uvicorn.__version__)",
    )
    assert out.returncode == 0, out.stderr
    lock = read_lock(FUNCTIONS["ChatStreamFunction"].code_uri / "requirements.txt")
    assert out.stdout.strip() == lock["uvicorn"].version


@needs_312
@pytest.mark.slow
def test_the_mcp_function_runs_on_its_layers(built, tmp_path):
    opt = lay_out(
        [built["engram"], built["tracing"], built["qdrant"], built["mcp"]], tmp_path / "opt"
    )
    (tmp_path / "runtime").symlink_to(built["runtime"])
    function = FUNCTIONS["McpFunction"]
    module, attribute = function.handler.rsplit(".", 1)
    out = _run(
        opt,
        function.code_uri,
        f"import {module}, qdrant_client, mcp; assert callable({module}.{attribute})",
    )
    assert out.returncode == 0, out.stderr


@needs_312
@pytest.mark.slow
def test_the_worst_combination_of_layers_fits_lambda_with_headroom(built):
    """Sizes of the built layers (bytecode included) plus the largest function."""
    size = {folder: _size(path) for folder, path in built.items() if folder != "runtime"}
    # The streaming chat function (uvicorn, the Web Adapter's layer) is the largest.
    stream = size.pop("chat_stream") + WEB_ADAPTER
    assert stream > max(_size(f.code_uri) for f in FUNCTIONS.values())
    mcp_function = _size(FUNCTIONS["McpFunction"].code_uri)
    every_function = size["engram"] + size["tracing"]
    combinations = {
        "streaming chat + transformers": every_function + stream + size["transformers"],
        "streaming chat + qdrant": every_function + stream + size["qdrant"],
        "MCP + qdrant": every_function + mcp_function + size["mcp"] + size["qdrant"],
    }
    print("\nbuilt layers (MiB): " + ", ".join(f"{k} {v / 2**20:.1f}" for k, v in size.items()))
    for name, total in combinations.items():
        print(f"{name}: {total / 2**20:.1f} MiB of 250")
        assert total + HEADROOM <= LAMBDA_LIMIT, name
    # Why the template's McpWithoutTransformers rule exists:
    mcp_with_transformers = every_function + mcp_function + size["mcp"] + size["transformers"]
    assert mcp_with_transformers + HEADROOM > LAMBDA_LIMIT
    rules = load_template().raw["Rules"]["McpWithoutTransformers"]
    assert rules["Assertions"][0]["Assert"] == {"Fn::Equals": [{"Ref": "EnableMcp"}, "false"]}


def _contents(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@needs_312
@pytest.mark.slow
def test_a_layer_rebuilt_elsewhere_has_the_same_bytes(built, tmp_path):
    """sam deploy uploads a layer only when its content changed: the bytecode must not
    carry the build folder's path nor vary from one build to the next."""
    again = build_layers(tmp_path, PYTHON, ["mcp"])["mcp"]  # type: ignore[arg-type]
    first, second = _contents(built["mcp"]), _contents(again)
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []
    assert b"/opt/python/mcp/" in first["python/mcp/__pycache__/__init__.cpython-312.pyc"]
