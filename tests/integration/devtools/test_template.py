"""template.yaml and the code agree: handlers, routes, queues, layers, sizes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared.devtools.lambda_local import build_layer
from shared.devtools.template import ROOT, load_template
from tests.support.lambda_support import load_function

TEMPLATE = load_template()
FUNCTIONS = TEMPLATE.functions()


@pytest.fixture(scope="module")
def layers(tmp_path_factory):
    """The layers as `engram build-layer` prepares them, built away from the checkout."""
    target = tmp_path_factory.mktemp("layers")
    build_layer(target)
    return target


@pytest.fixture(scope="module")
def layer(layers):
    return layers / "engram"


def test_the_layer_is_built_without_touching_the_checkout(layers):
    checkout = ROOT / "layers"
    assert not (checkout / "engram" / "shared").exists()
    assert (layers / "engram" / "engram" / "wiring" / "__init__.py").is_file()
    assert (layers / "engram" / "shared" / "http" / "app.py").is_file()
    assert not (layers / "engram" / "shared" / "devtools").exists()  # tooling stays out


def test_every_function_folder_is_deployed_and_every_function_exists():
    folders = {p.name for p in (ROOT / "functions").iterdir() if (p / "app.py").exists()}
    assert {f.code_uri.name for f in FUNCTIONS.values()} == folders


# Functions whose Handler is a Python handler (ChatStreamFunction's is run.sh, started by the
# Lambda Web Adapter: tests/integration/devtools/test_streaming.py).
PYTHON_HANDLERS = sorted(i for i, f in FUNCTIONS.items() if not f.handler.endswith(".sh"))


@pytest.mark.parametrize("logical_id", PYTHON_HANDLERS)
def test_handlers_import_from_their_code_uri_with_the_layer_on_the_path(logical_id, layer):
    function = FUNCTIONS[logical_id]
    module, attribute = function.handler.rsplit(".", 1)
    code = (
        f"import {module}, shared, engram;"
        f"assert callable({module}.{attribute});"
        f"print({module}.__file__, shared.__file__, engram.__file__)"
    )
    env = {**os.environ, "PYTHONPATH": f"{function.code_uri}{os.pathsep}{layer}"}
    env["ENGRAM_DB_URL"] = "file:/tmp/engram-import-check.db"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd="/", env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    handler_file, shared_file, engram_file = out.stdout.split()
    assert Path(handler_file).parent == function.code_uri
    assert Path(shared_file).is_relative_to(layer)  # the glue comes from the layer
    assert Path(engram_file).is_relative_to(layer)


@pytest.mark.parametrize("logical_id", sorted(i for i, f in FUNCTIONS.items() if f.routes))
def test_http_routes_match_the_app_both_ways(logical_id):
    function = FUNCTIONS[logical_id]
    app = load_function(function.code_uri.name).app
    # The app's routes themselves: /mcp is served but left out of the OpenAPI document.
    served = {
        (method.upper(), route.path)
        for route in _api_routes(app.routes)
        for method in route.methods
    }
    assert function.routes == served


def _api_routes(routes):
    """Every APIRoute, through included routers (FastAPI keeps those as wrappers)."""
    from fastapi.routing import APIRoute

    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):
            yield from _api_routes(route.original_router.routes)


def test_no_two_functions_claim_a_route():
    routes = [r for f in FUNCTIONS.values() for r in f.routes]
    assert len(routes) == len(set(routes))


def test_queue_visibility_is_six_times_the_consumer_timeout():
    for function in FUNCTIONS.values():
        for queue in function.queues:
            properties = TEMPLATE.resources[queue]["Properties"]
            assert properties["VisibilityTimeout"] >= 6 * function.timeout, queue
            assert properties["RedrivePolicy"]["maxReceiveCount"] >= 1


# What decides the embedder a function can build and the signature of its vectors.
EMBEDDING_FIELDS = (
    "upstream_base_url",
    "upstream_api_key_secret",  # the keys themselves are read at run time (shared/secrets.py)
    "embedding_api_key_secret",
    "vec_quantization",
    "static_model",
    "transformers_model",
    "static_cache_dir",
)


# The API's authorizer reads API keys and nothing else: no embedder, no upstream key.
NEVER_EMBEDS = {"ApiAuthorizerFunction"}


def test_every_function_gets_one_embedding_configuration():
    """Every function may embed (queries, new memories, reindex). One that could not build
    the configured embedder would leave vectors pending (issue 13: the chat proxy alone
    had the key, and the others reset the vectors to another embedder)."""
    from engram import Config

    names = [Config.model_fields[field].alias for field in EMBEDDING_FIELDS]
    seen = {  # the MCP function's own layer holds the MCP SDK only, nothing that embeds
        logical_id: (
            {n: f.environment.get(n) for n in names},
            [x for x in f.layers if x != "McpLayer"],
        )
        for logical_id, f in FUNCTIONS.items()
        if logical_id not in NEVER_EMBEDS
    }
    first = next(iter(seen.values()))
    assert all(found == first for found in seen.values()), seen
    environment = first[0]
    assert environment["ENGRAM_UPSTREAM_BASE_URL"] == {"Ref": "UpstreamBaseUrl"}
    assert environment["ENGRAM_UPSTREAM_API_KEY_SECRET"] == {"Ref": "UpstreamApiKeySecret"}
    assert environment["ENGRAM_EMBEDDING_API_KEY_SECRET"] == {"Ref": "EmbeddingApiKeySecret"}


def test_engram_invoke_runs_a_function_as_lambda_would(tmp_path):
    env_file = tmp_path / "env.json"
    env_file.write_text(
        json.dumps(
            {
                "MemoryApiFunction": {
                    "ENGRAM_DB_URL": f"file:{tmp_path}/invoke.db",
                    "ENGRAM_ADMIN_TOKEN": "test-admin-token",
                }
            }
        )
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "shared.devtools.cli",
            "invoke",
            "MemoryApiFunction",
            "--event",
            str(ROOT / "events" / "memory_api_health.json"),
            "--env-vars",
            str(env_file),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    response = json.loads(out.stdout[out.stdout.rindex("\n{") :])
    assert response["statusCode"] == 200
    assert json.loads(response["body"])["working"] is True
    missing = subprocess.run(
        [
            sys.executable,
            "-m",
            "shared.devtools.cli",
            "invoke",
            "NoSuchFunction",
            "--event",
            str(env_file),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2 and "MemoryApiFunction" in missing.stderr


@pytest.mark.parametrize(
    ("url", "deployable"),
    [
        ("libsql://db-org.turso.io", True),
        ("https://db-org.turso.io", True),
        ("wss://db-org.turso.io", True),
        # Openable, but the functions are outside any VPC: the token would cross the
        # internet in clear.
        ("http://10.0.0.5:8080", False),
        ("ws://sqld.internal:8080", False),
        ("libsql://", False),
        ("postgres://db.example.com", False),
        ("file:engram.db", False),  # a file is not shared between Lambda instances
    ],
)
def test_the_db_url_pattern_accepts_only_encrypted_urls_the_client_opens(url, deployable):
    import re

    from engram import Config

    pattern = TEMPLATE.raw["Parameters"]["DbUrl"]["AllowedPattern"]
    assert bool(re.match(pattern, url)) is deployable
    if deployable:
        Config(db_url=url)  # the start-up check agrees


def test_functions_other_than_mcp_import_without_the_mcp_sdk(layer):
    """Only the MCP function has the MCP layer: the others must not import the SDK."""
    blocker = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('mcp', 'mcp_types'):\n"
        "            raise ImportError('no MCP SDK in this function')\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    for function in FUNCTIONS.values():
        if "McpLayer" in function.layers:
            continue
        if function.handler.endswith(".sh"):  # the streamed chat: its ASGI app
            module, attribute = "app", "app"
        else:
            module, attribute = function.handler.rsplit(".", 1)
        code = blocker + f"import {module}; assert callable({module}.{attribute})"
        env = {**os.environ, "PYTHONPATH": f"{function.code_uri}{os.pathsep}{layer}"}
        env["ENGRAM_DB_URL"] = "file:/tmp/engram-import-check.db"
        out = subprocess.run(
            [sys.executable, "-c", code], cwd="/", env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, (function.logical_id, out.stderr[-2000:])


def test_every_engram_variable_in_the_template_is_a_setting():
    """A misspelt variable would be ignored silently: the setting keeps its default."""
    from engram import Config

    settings = {field.alias for field in Config.model_fields.values()}
    for logical_id, function in FUNCTIONS.items():
        unknown = {n for n in function.environment if n.startswith("ENGRAM_")} - settings
        assert not unknown, (logical_id, unknown)
    assert FUNCTIONS["ChatProxyFunction"].environment["ENGRAM_KEYWORD_CACHE_MB"] == "128"


def test_only_the_extraction_worker_reads_the_extractor_key_and_it_may_batch():
    worker = FUNCTIONS["ExtractionWorkerFunction"]
    key = {
        "Fn::If": ["WithExtractorKey", {"Ref": "ExtractorApiKeySecret"}, {"Ref": "AWS::NoValue"}]
    }
    assert worker.environment["ENGRAM_EXTRACTOR_API_KEY_SECRET"] == {"Ref": "ExtractorApiKeySecret"}
    (statement,) = [
        s
        for policy in worker.properties["Policies"]
        for s in (policy.get("Statement", []) if isinstance(policy, dict) else [])
        if s.get("Sid") == "ReadItsSecrets"
    ]
    assert key in statement["Resource"]
    others = [f for i, f in FUNCTIONS.items() if i != "ExtractionWorkerFunction"]
    assert all("ENGRAM_EXTRACTOR_API_KEY_SECRET" not in f.environment for f in others)
    assert "ExtractorApiKeySecret" not in json.dumps([f.properties for f in others])
    jobs = worker.polling["ExtractionQueue"]
    assert jobs["MaximumBatchingWindowInSeconds"] == {"Ref": "ExtractionBatchWindowSeconds"}
    assert TEMPLATE.parameter_defaults()["ExtractionBatchWindowSeconds"] == "0"
