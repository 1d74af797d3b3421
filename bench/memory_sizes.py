"""Memory sizes from measured peaks: each function started cold on the built layers (as
``bench/cold_init.py`` does) and given its sample event from ``events/``, measured for
peak RSS and CPU time; then, per memory size, what Lambda's CPU share makes of it.

Lambda gives a function CPU in proportion to its memory, one vCPU at 1,769 MB. Below
that, the CPU part of an invocation takes about ``cpu_s * 1769 / MB``; the time spent
waiting on the network (the upstream model, the database) does not change with memory.
This machine is not Lambda: the CPU seconds are this machine's, so the table is an
estimate to choose sizes by (a power-tuning table computed, not run on Lambda).

- cold: importing the handler and its first invocation (the engine built, the database
  opened, models loaded), in a fresh CPython 3.12 process with no site packages;
- warm: the median of the next invocations with the same event;
- peak: the process's maximum resident set after them.

The chat proxy answers from a stub upstream on 127.0.0.1, and with no queue URL the
function learns inline (as a Lambda without queues does): its warm CPU includes the
extraction that the worker does in a deployment, an upper bound. The streamed chat is
the same app under uvicorn and is not run here.

Run: ``.venv/bin/python bench/memory_sizes.py [--runs 5]`` (needs a CPython 3.12:
pyenv's, or ``ENGRAM_PYTHON312``; building the layers takes about a minute).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
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
from tests.support.upstream_stub import StubUpstream  # noqa: E402

ADMIN = "test-admin-token"  # the sample events' admin token
FULL_VCPU_MB = 1769
SIZES = (256, 512, 1024, 1769)
# function -> the sample event it is given (events/<name>.json)
EVENTS = {
    "ApiAuthorizerFunction": "api_authorizer_request",
    "ChatProxyFunction": "chat_proxy_completion",
    "MemoryApiFunction": "memory_api_create",
    "RetrievePreviewFunction": "retrieve_preview_query",
    "McpFunction": "mcp_server_tools_call",
    "ExtractionWorkerFunction": "extraction_worker_batch",
    "EmbeddingWorkerFunction": "embedding_worker_batch",
    "CleanupScheduleFunction": "cleanup_schedule_hourly",
    "ReindexScheduleFunction": "reindex_schedule_tick",
    "SummarizeScheduleFunction": "summarize_schedule_daily",
}
NEEDS_KEY = {"ChatProxyFunction", "McpFunction"}

SETUP = """
from engram import Config, MemorySettingsUpdate, open_engine
from engram.domain.models import ApiKeyCreate
engine = open_engine(Config(db_url={db!r}))
engine.settings.update(MemorySettingsUpdate(enabled=True))
print(engine.keys.create(ApiKeyCreate(name="bench")).secret)
engine.close()
"""

MEASURE = """
import json, resource, statistics, time
began = time.process_time()
import {module} as function
event = json.load(open({event!r}))
secret = {secret!r}
if secret:
    event["headers"]["authorization"] = "Bearer " + secret

class Context:
    function_name = "bench"
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:bench"
    aws_request_id = "bench"
    def get_remaining_time_in_millis(self):
        return 30000

function.{attribute}(json.loads(json.dumps(event)), Context())
cold = time.process_time() - began
warm = []
for _ in range({runs}):
    started = time.process_time()
    function.{attribute}(json.loads(json.dumps(event)), Context())
    warm.append(time.process_time() - started)
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"cold": cold, "warm": statistics.median(warm), "peak_mb": peak_mb}}))
"""


def measure(
    python: str, opt: Path, runtime: Path, logical_id: str, runs: int, upstream: str
) -> dict[str, float]:
    function = load_template().functions()[logical_id]
    module, attribute = function.handler.rsplit(".", 1)
    db = str(opt.parent / f"{logical_id}.db")
    env = {
        "ENGRAM_DB_URL": f"file:{db}",
        "ENGRAM_ADMIN_TOKEN": ADMIN,
        "ENGRAM_UPSTREAM_BASE_URL": upstream,
        "ENGRAM_UPSTREAM_API_KEY": "sk-stub",
        "POWERTOOLS_METRICS_NAMESPACE": "EngramBench",
    }
    secret = ""
    if logical_id in NEEDS_KEY:
        made = cold_start(python, opt, runtime, function.code_uri, SETUP.format(db=db), **env)
        made.check_returncode()
        secret = made.stdout.strip().splitlines()[-1]
    event = str(ROOT / "events" / f"{EVENTS[logical_id]}.json")
    code = MEASURE.format(module=module, attribute=attribute, event=event, secret=secret, runs=runs)
    out = cold_start(python, opt, runtime, function.code_uri, code, **env)
    if out.returncode != 0:
        raise RuntimeError(f"{logical_id}: {out.stderr[-2000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def at(cpu_s: float, memory_mb: int) -> float:
    """CPU seconds on this machine as Lambda seconds at ``memory_mb``."""
    return cpu_s * max(1.0, FULL_VCPU_MB / memory_mb)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="warm invocations per function")
    args = parser.parse_args()
    python = python312()
    if python is None:
        print("needs a CPython 3.12 (pyenv's, or ENGRAM_PYTHON312)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp, StubUpstream(record=False) as stub:
        work = Path(tmp)
        print("building the engine, tracing and MCP layers...", file=sys.stderr)
        built = build_layers(work, python, ["engram", "tracing", "mcp"])
        runtime = runtime_packages(work / "runtime", python)
        opt = lay_out([built["engram"], built["tracing"], built["mcp"]], work / "opt")
        results = {
            logical_id: measure(python, opt, runtime, logical_id, args.runs, stub.url)
            for logical_id in tqdm(EVENTS, desc="functions", unit="function")
        }
    print("\nmeasured on this machine (CPU seconds; peak resident MB)")
    print(f"{'function':<28} {'peak MB':>8} {'cold CPU s':>10} {'warm CPU ms':>11}")
    for logical_id, r in results.items():
        print(f"{logical_id:<28} {r['peak_mb']:8.0f} {r['cold']:10.2f} {r['warm'] * 1000:11.1f}")
    print("\nestimated at each memory size: cold start s / warm CPU ms (network waits apart)")
    print(f"{'function':<28}" + "".join(f"{f'{mb} MB':>16}" for mb in SIZES))
    for logical_id, r in results.items():
        cells = "".join(
            f"{at(r['cold'], mb):>8.2f} /{at(r['warm'], mb) * 1000:>6.0f}" for mb in SIZES
        )
        print(f"{logical_id:<28}{cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
