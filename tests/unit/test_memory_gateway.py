"""Every edge reaches memory through one entry, the gateway (``engine.memory``), and the
gateway says for each operation where it goes."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from engram.app.routing import WHERE, MemoryGateway

ROOT = Path(__file__).resolve().parents[2]
EDGES = sorted((ROOT / "shared" / "http" / "routers").glob("*.py")) + sorted(
    (ROOT / "shared" / "mcp").glob("*.py")
)
# Not memory operations: administration of the backends themselves (a probe, a status).
BACKEND_ADMIN = {"test", "status"}


def _engine_calls(tree: ast.AST) -> list[tuple[str, str, int]]:
    """``engine.<service>.<method>`` (also ``engine().<service>...``) in a module."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)):
            continue
        base = node.value.value
        if isinstance(base, ast.Call):
            base = base.func
        if isinstance(base, ast.Name) and base.id == "engine":
            found.append((node.value.attr, node.attr, node.lineno))
    return found


def test_routes_and_tools_reach_memory_only_through_the_gateway():
    offending, through_gateway = [], 0
    for path in EDGES:
        for service, method, line in _engine_calls(ast.parse(path.read_text())):
            where = f"{path.relative_to(ROOT)}:{line} engine.{service}.{method}"
            if service in ("memories", "retrieval") or (
                service == "backends" and method not in BACKEND_ADMIN
            ):
                offending.append(where)
            through_gateway += service == "memory"
    assert not offending, offending
    assert through_gateway >= 15  # the walk sees the calls it is meant to see


def test_the_walk_finds_a_call_that_bypasses_the_gateway():
    source = "def f(engine):\n    return engine.backends.create(item)\n"
    assert _engine_calls(ast.parse(source)) == [("backends", "create", 2)]


def test_the_gateway_says_where_each_of_its_operations_goes():
    public = {
        name
        for name, value in inspect.getmembers(MemoryGateway, inspect.isfunction)
        if not name.startswith("_")
    }
    assert public == set(WHERE)
    assert set(WHERE.values()) == {"primary", "libsql"}
