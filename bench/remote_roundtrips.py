"""HTTP round trips to a real libSQL server (sqld) per request, and latency with an
injected network delay: the ``libsql`` binding against Engram's Hrana client.

A relay between Engram and sqld counts HTTP requests and delays each by ``--delay-ms``
(standing for a cross-network round trip). The service runs in this process (the
FastAPI app, embedded settings cache, a stub upstream for the chat); each driver gets
its own fresh sqld. Cold start = opening the engine on an already migrated database
plus its first preview. Warm = the median of ``--requests`` requests after two warm-ups.
"Preview after a write": a memory created before each preview, as conversation memory
writes with every exchange; only the preview's requests and time are counted.

Run: ``.venv/bin/python bench/remote_roundtrips.py [--delay-ms 20] [--requests 20]``.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from fastapi.testclient import TestClient  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from engram import Config, open_engine  # noqa: E402
from engram.adapters.libsql import database  # noqa: E402
from engram.wiring import migrate  # noqa: E402
from shared.devtools.sqld import SqldServer  # noqa: E402
from shared.http import create_app  # noqa: E402
from tests.support.relay import Relay  # noqa: E402 - the tests' relay, on purpose
from tests.support.upstream_stub import StubUpstream  # noqa: E402

ADMIN = "bench-admin"
IMPORT_ITEMS = 500


class BindingConnection:
    """The ``libsql`` binding's remote connection, as Database used it before."""

    def __init__(self, url: str, auth_token: str | None, timeout_s: float) -> None:
        import libsql

        self._conn = libsql.connect(url, auth_token=auth_token or "", isolation_level=None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def execute_many_statements(self, statements: list[tuple[str, Any]]) -> list[Any]:
        results = []
        for sql, params in statements:
            cursor = self._conn.execute(sql, params)
            names = [d[0] for d in cursor.description or ()]
            results.append(database.HranaResult(names, cursor.fetchall() or [], 0))
        return results

    def defer(self, sql: str, params: Any = ()) -> None:
        self._conn.execute(sql, params)


def _relay_process(target: int, delay_s: float, port: Any, count: Any, stop: Any) -> None:
    with Relay("127.0.0.1", target, delay_s=delay_s) as relay:
        port.value = relay.port
        while not stop.is_set():
            count.value = relay.requests
            time.sleep(0.0005)


class RelayProcess:
    """The relay in its own process: the binding holds the GIL while it waits on the
    network, so a relay thread in this process could never answer it."""

    def __init__(self, target: int, delay_s: float) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._port, self._count, self._stop = ctx.Value("i", 0), ctx.Value("q", 0), ctx.Event()
        self._process = ctx.Process(
            target=_relay_process, args=(target, delay_s, self._port, self._count, self._stop)
        )

    def __enter__(self) -> RelayProcess:
        self._process.start()
        while not self._port.value:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._process.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port.value}"

    @property
    def requests(self) -> int:
        time.sleep(0.005)  # the child publishes its count every 0.5 ms
        return int(self._count.value)


def measure(driver: str, delay_s: float, requests: int, upstream: StubUpstream) -> dict[str, Any]:
    original = database.HranaConnection
    if driver == "binding":
        database.HranaConnection = BindingConnection  # type: ignore[assignment,misc]
    try:
        with tempfile.TemporaryDirectory() as tmp, SqldServer(Path(tmp)) as sqld:
            migrate(Config(db_url=sqld.url))
            with RelayProcess(sqld.port, delay_s) as relay:
                return _run(relay, Path(tmp), requests, upstream, driver == "hrana")
    finally:
        database.HranaConnection = original  # type: ignore[misc]


def _run(
    relay: RelayProcess, tmp: Path, requests: int, upstream: StubUpstream, fast: bool
) -> dict[str, Any]:
    config = Config(
        db_url=relay.url,
        data_dir=tmp / "data",
        admin_token=SecretStr(ADMIN),
        upstream_base_url=upstream.url,
        upstream_api_key=SecretStr("upstream"),
    )
    figures: dict[str, Any] = {}
    before = relay.requests
    started = time.perf_counter()
    engine = open_engine(config, jobs="manual")
    admin = TestClient(
        create_app(config=config, engine=lambda: engine),
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    admin.post("/api/memory/retrieve-preview", json={"apiKeyId": "k1", "query": "tea"})
    figures["cold start"] = (relay.requests - before, (time.perf_counter() - started) * 1000)
    made = admin.post("/api/keys", json={"name": "bench"}).json()
    secret, owner = made["secret"], made["id"]
    assert admin.put("/api/settings/memory", json={"enabled": True}).status_code == 200
    user = TestClient(admin.app, headers={"Authorization": f"Bearer {secret}"})
    counter = iter(range(1_000_000))

    def create() -> None:
        n = next(counter)
        body = {"apiKeyId": owner, "content": f"I drink green tea number {n}", "key": f"t{n}"}
        assert admin.post("/api/memory", json=body).status_code == 201

    def preview() -> None:
        body = {"apiKeyId": owner, "query": "what tea do I drink"}
        answer = admin.post("/api/memory/retrieve-preview", json=body)
        assert answer.status_code == 200, answer.text

    def chat() -> None:
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "which tea?"}]}
        assert user.post("/v1/chat/completions", json=body).status_code == 200

    def create_in_session() -> None:
        n = next(counter)
        body = {"apiKeyId": owner, "content": f"tea talk {n}", "key": f"c{n}", "sessionId": "s1"}
        assert admin.post("/api/memory", json=body).status_code == 201

    def import_batch() -> None:
        n = next(counter)
        body = [
            {
                "apiKeyId": owner,
                "key": f"i{n}-{i}",
                "content": f"imported {i}",
                "sessionId": f"s{i % 5}",
            }
            for i in range(IMPORT_ITEMS)
        ]
        assert admin.post("/api/memory/import", json=body).status_code == 200

    cases: dict[str, Callable[[], None]] = {
        "warm create": create,
        "create in a session": create_in_session,
    }
    for _ in range(10):
        create()
    while engine.vectors.reindex(max_seconds=30).pending:  # what the embedding worker does
        pass
    cases |= {"warm preview": preview, "warm chat": chat}
    # Conversation memory writes with every exchange: the next retrieval first brings the
    # owner's vector index and keyword postings up to that write (only its time counted).
    cases["preview after a write"] = preview
    for name, action in cases.items():
        action()
        action()
        counts, times = [], []
        for _ in range(requests):
            if name == "preview after a write":
                create()
            before = relay.requests
            started = time.perf_counter()
            action()
            times.append((time.perf_counter() - started) * 1000)
            counts.append(relay.requests - before)
        figures[name] = (statistics.median(counts), statistics.median(times))
    if fast:  # item by item, the binding would take minutes an import: not measured
        before, started = relay.requests, time.perf_counter()
        import_batch()
        name = f"import of {IMPORT_ITEMS} (5 sessions)"
        figures[name] = (relay.requests - before, (time.perf_counter() - started) * 1000)
    engine.close()
    return figures


def main() -> int:
    logging.disable(logging.WARNING)  # the access log would drown the table
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    upstream = StubUpstream(record=False)
    upstream.start()
    results = {}
    try:
        for driver in tqdm(("binding", "hrana"), desc="drivers", file=sys.stderr):
            results[driver] = measure(driver, args.delay_ms / 1000, args.requests, upstream)
    finally:
        upstream.stop()
    print(f"HTTP requests to sqld and latency, {args.delay_ms:.0f} ms injected per request")
    print(f"{'':14} {'binding RT':>10} {'ms':>8}   {'hrana RT':>8} {'ms':>8}   ratio")
    for name in results["hrana"]:
        h_rt, h_ms = results["hrana"][name]
        if name not in results["binding"]:
            print(f"{name:14} {'-':>10} {'-':>8}   {h_rt:>8} {h_ms:>8.0f}")
            continue
        b_rt, b_ms = results["binding"][name]
        print(f"{name:14} {b_rt:>10} {b_ms:>8.0f}   {h_rt:>8} {h_ms:>8.0f}   {h_ms / b_ms:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
