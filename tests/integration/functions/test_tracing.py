"""Powertools Tracer on every function: a handler run as Lambda runs it (X-Ray active, a
trace header in the environment) sends its ``## handler`` subsegment to the X-Ray daemon,
here a UDP socket of the test's own."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from shared.devtools.template import ROOT, load_template

FUNCTIONS = load_template().functions()
# One sample event per kind of handler: HTTP, SQS worker, schedule, MCP.
EVENTS = {
    "MemoryApiFunction": "memory_api_health",
    "EmbeddingWorkerFunction": "embedding_worker_batch",
    "CleanupScheduleFunction": "cleanup_schedule_hourly",
    "McpFunction": "mcp_server_tools_list",
}
TRACE_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
RUN = (
    "import json, sys, app\n"
    "class Context:\n"
    "    function_name = 'engram-trace'; function_version = '$LATEST'\n"
    "    memory_limit_in_mb = 1024; aws_request_id = 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef'\n"
    "    invoked_function_arn = 'arn:aws:lambda:eu-west-1:123456789012:function:engram-trace'\n"
    "app.handler(json.load(sys.stdin), Context())\n"
)


def test_every_function_is_traced_in_the_template():
    assert load_template().raw["Globals"]["Function"]["Tracing"] == "Active"
    assert all("Tracing" not in f.properties for f in FUNCTIONS.values())


@pytest.mark.parametrize("logical_id", sorted(EVENTS))
def test_the_handler_sends_its_subsegment_to_xray(logical_id, tmp_path):
    function = FUNCTIONS[logical_id]
    daemon = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    daemon.bind(("127.0.0.1", 0))
    daemon.settimeout(10)
    port = daemon.getsockname()[1]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(function.code_uri), str(ROOT), str(ROOT / "layers/engram")]
        ),
        "ENGRAM_DB_URL": f"file:{tmp_path / 'trace.db'}",
        "ENGRAM_ADMIN_TOKEN": "test-admin-token",
        "AWS_LAMBDA_FUNCTION_NAME": "engram-trace",
        "LAMBDA_TASK_ROOT": str(function.code_uri),
        "POWERTOOLS_TRACE_DISABLED": "false",
        "POWERTOOLS_METRICS_NAMESPACE": "EngramTest",
        "_X_AMZN_TRACE_ID": TRACE_HEADER,
        "AWS_XRAY_DAEMON_ADDRESS": f"127.0.0.1:{port}",
        "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
        "AWS_DEFAULT_REGION": "eu-west-1",
    }
    event = (ROOT / "events" / f"{EVENTS[logical_id]}.json").read_text()
    with daemon:
        out = subprocess.run(
            [sys.executable, "-c", RUN],
            input=event,
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr[-3000:]
        names = set()
        while "## handler" not in names:
            datagram = daemon.recv(65536).decode()
            header, _, body = datagram.partition("\n")
            assert json.loads(header)["format"] == "json"
            document = json.loads(body)
            names.add(document["name"])
            names.update(s["name"] for s in document.get("subsegments", []))
    assert "## handler" in names
