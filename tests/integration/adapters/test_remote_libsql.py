"""The cloud storage path against a real libSQL server (sqld 0.24 from the pinned wheel):
two processes sharing it, a network path that black-holes, sqld killed and restarted,
and the URLs the client accepts."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from engram import Config, ConfigError, StorageError, open_engine
from engram.adapters.libsql import Database, budget
from engram.adapters.libsql.hrana import HranaConnection, http_base_url
from engram.config import load_config
from engram.domain.models import MemoryCreate, RetrievalRequest
from shared.devtools.sqld import SqldServer
from shared.http import create_app
from tests.support.relay import Relay
from tests.support.server import engram_server


@pytest.fixture
def sqld(tmp_path: Path):
    with SqldServer(tmp_path) as server:
        yield server


def _preview(server, key: str, query: str) -> dict:
    response = httpx.post(
        f"{server.base}/api/memory/retrieve-preview",
        json={"apiKeyId": key, "query": query},
        headers=server.admin,
        timeout=30,
    )
    response.raise_for_status()
    return response.json()


def _until(check, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def test_two_servers_on_one_sqld_behave_as_two_functions(sqld, tmp_path):
    env = {"ENGRAM_DB_URL": sqld.url, "ENGRAM_SETTINGS_CACHE_TTL_S": "1"}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with (
        engram_server(tmp_path / "a", **env) as a,
        engram_server(tmp_path / "b", **env) as b,
    ):
        created = httpx.post(
            f"{a.base}/api/memory",
            json={"apiKeyId": "k1", "content": "My cat is named Biscuit", "key": "cat"},
            headers=a.admin,
        )
        assert created.status_code == 201, created.text
        memory_id = created.json()["id"]

        # A's embedding worker writes the vector; B's next retrieval ranks with it.
        def b_has_the_vector() -> bool:
            results = _preview(b, "k1", "what is my cat called")["results"]
            return bool(results) and results[0]["vecScore"] is not None

        assert _until(b_has_the_vector, 30)
        assert _preview(b, "k1", "what is my cat called")["results"][0]["id"] == memory_id

        a.settings(maxTokens=123)

        def b_sees_the_settings() -> bool:
            body = httpx.get(f"{b.base}/api/settings/memory", headers=b.admin).json()
            return bool(body["maxTokens"] == 123)

        started = time.monotonic()
        assert _until(b_sees_the_settings, 5)
        assert time.monotonic() - started < 3  # the documented cache time is 1 s here

        deleted = httpx.delete(f"{a.base}/api/memory/{memory_id}", headers=a.admin)
        assert deleted.status_code == 204, deleted.text
        assert _preview(b, "k1", "what is my cat called")["results"] == []


def test_a_black_holed_path_answers_503_in_time_and_recovers(sqld, tmp_path):
    with Relay("127.0.0.1", sqld.port) as relay:
        config = Config(
            db_url=relay.url,
            db_timeout_s=1.0,
            data_dir=tmp_path / "data",
            admin_token=SecretStr("t"),
        )
        engine = open_engine(config, jobs="manual")
        client = TestClient(
            create_app(config=config, engine=lambda: engine),
            headers={"Authorization": "Bearer t"},
        )
        try:
            kept = client.post("/api/memory", json={"apiKeyId": "k1", "content": "Sushi on Fri"})
            assert kept.status_code == 201

            relay.mode = "blackhole"
            ticks = 0
            stop = threading.Event()

            def tick() -> None:  # runs only if the waiting request leaves the GIL free
                nonlocal ticks
                while not stop.is_set():
                    ticks += 1
                    time.sleep(0.01)

            ticker = threading.Thread(target=tick)
            ticker.start()
            started = time.monotonic()
            stuck = client.post("/api/memory/retrieve-preview", json={"apiKeyId": "k1"})
            waited = time.monotonic() - started
            stop.set()
            ticker.join()
            assert stuck.status_code == 503, stuck.text
            assert "did not answer in time" in stuck.json()["error"]["message"]
            assert waited < 5  # 1 s per round trip, not a hang
            assert ticks > 20

            relay.mode = "forward"
            assert client.get("/api/memory/health").json()["working"] is True
            body = client.post("/api/memory/retrieve-preview", json={"apiKeyId": "k1"}).json()
            assert [m["content"] for m in body["results"]] == ["Sushi on Fri"]
        finally:
            engine.close()


def test_a_request_waits_on_the_database_for_its_budget_in_all_then_fails_fast(
    sqld, tmp_path, monkeypatch
):
    """ENGRAM_DB_TIMEOUT_S bounds a whole request's database time (not each round trip,
    which made a black-holed preview answer after 60 s), a background job holding the
    connection included; after repeated timeouts the breaker answers at once, and the
    first round trip after it re-opens lets the recovered server back in."""
    clock = BreakerClock()
    monkeypatch.setattr(budget, "breaker_clock", clock)
    with Relay("127.0.0.1", sqld.port) as relay:
        config = Config(
            db_url=relay.url, db_timeout_s=1.0, data_dir=tmp_path / "d", admin_token=SecretStr("t")
        )
        engine = open_engine(config, jobs="manual")
        client = TestClient(
            create_app(config=config, engine=lambda: engine), headers={"Authorization": "Bearer t"}
        )
        try:
            client.post("/api/memory", json={"apiKeyId": "k1", "content": "Sushi on Fri"})
            relay.mode = "blackhole"
            db = engine.memories.store.db
            busy = threading.Thread(target=lambda: _swallow(lambda: db.query("SELECT 1")))
            busy.start()  # a background job holding the connection through a dead round trip
            time.sleep(0.1)
            waits = []
            for _ in range(4):
                started = time.monotonic()
                answer = client.post("/api/memory/retrieve-preview", json={"apiKeyId": "k1"})
                waits.append(time.monotonic() - started)
                assert answer.status_code == 503, answer.text
            busy.join()
            assert max(waits) < 1.0 + 1.0, waits  # the budget, plus a second of slack
            assert waits[-1] < 0.3, waits  # the breaker: no wait at all
            relay.mode = "forward"
            clock.advance(budget.OPEN_S)  # the breaker's open time, passed
            assert _until(lambda: client.get("/api/memory/health").status_code == 200, 5)
        finally:
            engine.close()


class BreakerClock:
    """The breaker's clock, moved on by the test instead of waited out."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def _swallow(action) -> None:
    with contextlib.suppress(StorageError):
        action()


def test_sqld_killed_and_restarted_mid_run_fails_cleanly_and_loses_nothing(
    sqld, tmp_path, monkeypatch
):
    clock = BreakerClock()  # the breaker, opened while sqld is down
    monkeypatch.setattr(budget, "breaker_clock", clock)
    engine = open_engine(
        Config(db_url=sqld.url, db_timeout_s=2.0, data_dir=tmp_path / "data"), jobs="manual"
    )
    acknowledged, failed = [], 0
    try:
        for i in range(60):
            if i == 20:
                sqld.stop()
            if i == 40:
                sqld.start()
                clock.advance(budget.OPEN_S)  # the breaker lets the next round trip try again
            try:
                memory = engine.memories.create(MemoryCreate(api_key_id="k1", content=f"fact {i}"))
                acknowledged.append(memory.id)
            except StorageError:
                failed += 1
        assert failed == 20  # exactly the writes made while sqld was down
        assert len(acknowledged) == 40
        stored = {m.id for m in engine.memories.export("k1")}
        assert stored == set(acknowledged)
        found = engine.retrieval.preview("k1", RetrievalRequest(query="fact 45"))
        assert found.results and found.resolution.keyword_tier == "fts5"
    finally:
        engine.close()


def test_round_trips_per_statement_and_per_transaction(sqld):
    db = Database(sqld.url)
    conn = db._conn
    assert isinstance(conn, HranaConnection)
    db.execute("CREATE TABLE t (x)")
    before = conn.round_trips
    db.query("SELECT 1")
    assert conn.round_trips - before == 1  # no describe before the statement
    before = conn.round_trips
    with db.transaction():
        db.execute("INSERT INTO t VALUES (1)")  # BEGIN travels with it
        db.execute("INSERT INTO t VALUES (2)")
    assert conn.round_trips - before == 3  # two statements, then COMMIT + close
    before = conn.round_trips
    db.executemany("INSERT INTO t VALUES (?)", [(3,), (4,), (5,)])
    assert conn.round_trips - before == 1

    def abort() -> None:
        with db.transaction():
            db.execute("INSERT INTO t VALUES (6)")
            raise RuntimeError("abort")

    with pytest.raises(RuntimeError):
        abort()
    assert db.scalar("SELECT group_concat(x) FROM t") == "1,2,3,4,5"
    values = db.query_one(
        "SELECT ? AS i, ? AS f, ? AS s, ? AS b, ? AS n", (7, 0.5, "é", b"\0\1", None)
    )
    assert values == {"i": 7, "f": 0.5, "s": "é", "b": b"\0\1", "n": None}
    db.close()


# A read that keeps sqld busy for a second or more (a job's slow round trip).
_SLOW = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000)"
    " SELECT count(*) AS n FROM c"
)


def test_a_thread_never_waits_on_another_threads_round_trip(sqld):
    """No lock is held across a round trip: a request's read goes while a background
    job's statement (or its transaction) is still waiting on the server."""
    db = Database(sqld.url, timeout_s=60)
    db.execute("CREATE TABLE t (x)")
    try:
        for slow in (
            lambda: db.query(_SLOW),
            lambda: _in_transaction(db, lambda: db.query(_SLOW)),
        ):
            job = threading.Thread(target=slow)
            job.start()
            time.sleep(0.2)  # the job's request is on the wire
            assert db.query("SELECT 1 AS one") == [{"one": 1}]
            assert job.is_alive()  # answered while the job still waits on its round trip
            job.join()
    finally:
        db.close()


def _in_transaction(db: Database, action) -> None:
    with db.transaction():
        db.execute("INSERT INTO t VALUES (1)")
        action()


def test_each_threads_transaction_is_its_own_stream(sqld):
    """A statement of another thread never joins (or sees) a transaction in progress."""
    db = Database(sqld.url, timeout_s=30)
    db.execute("CREATE TABLE t (x)")
    seen: list[int] = []
    with db.transaction():
        db.execute("INSERT INTO t VALUES ('mine')")
        other = threading.Thread(target=lambda: seen.append(db.scalar("SELECT count(*) FROM t")))
        other.start()
        other.join(10)
        assert db.scalar("SELECT count(*) FROM t") == 1  # this thread's stream sees its row
    assert seen == [0]  # the other thread read outside the transaction
    assert db.scalar("SELECT count(*) FROM t") == 1  # committed
    db.close()


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("libsql://db-org.turso.io", "https://db-org.turso.io"),
        ("wss://db-org.turso.io", "https://db-org.turso.io"),
        ("libsql://127.0.0.1:8080?tls=0", "http://127.0.0.1:8080"),
        ("ws://localhost:8080/", "http://localhost:8080"),
        ("https://db.example.com", "https://db.example.com"),
    ],
)
def test_remote_urls_map_to_what_the_client_opens(url, base):
    assert http_base_url(url) == base


@pytest.mark.parametrize("url", ["postgres://db.example.com", "libsql://", "s3://bucket/x"])
def test_urls_the_client_cannot_open_are_refused_at_start(url, monkeypatch):
    monkeypatch.setenv("ENGRAM_DB_URL", url)
    with pytest.raises(ConfigError, match="ENGRAM_DB_URL: Value error, must be file:<path>"):
        load_config()
