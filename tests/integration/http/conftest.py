"""HTTP fixtures: the app over a real libSQL file, and the Lambda environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr

from engram import Config, Engine, MemorySettingsUpdate, open_engine, reset_engines
from engram.domain.models import ApiKeyCreate
from shared.http import create_app
from tests.support.http import ADMIN_TOKEN, AUTH
from tests.support.upstream_stub import StubUpstream


@pytest.fixture
def app(engine: Engine) -> FastAPI:
    config = Config(db_url=engine.config.db_url, admin_token=SecretStr(ADMIN_TOKEN))
    return create_app(config=config, engine=lambda: engine)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, headers=AUTH, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def anonymous(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def lambda_env(monkeypatch: pytest.MonkeyPatch, db_path: Path) -> Iterator[str]:
    """The environment the template gives the functions, pointing at a test database."""
    url = f"file:{db_path}"
    monkeypatch.setenv("ENGRAM_DB_URL", url)
    monkeypatch.setenv("ENGRAM_ADMIN_TOKEN", ADMIN_TOKEN)
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "EngramTest")
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "engram-test")  # as the runtime does
    reset_engines()
    yield url
    reset_engines()


@pytest.fixture
def chat(engine, client):
    """The chat proxy over a stub upstream, memory on, one API key: (client, stub, engine)."""
    engine.settings.update(MemorySettingsUpdate(enabled=True))
    client.post(
        "/api/memory",
        json={"apiKeyId": "ignored", "key": "pet", "content": "My cat is named Biscuit"},
    )
    key = engine.keys.create(ApiKeyCreate(name="hostile"))
    with StubUpstream() as stub:
        config = Config(
            db_url=engine.config.db_url,
            admin_token=SecretStr(ADMIN_TOKEN),
            upstream_base_url=stub.url,
            upstream_api_key=SecretStr("sk"),
        )
        proxy = open_engine(config, jobs="manual")
        app = create_app(config=config, engine=lambda: proxy)
        with TestClient(app, headers={"Authorization": f"Bearer {key.secret}"}) as http:
            yield http, stub, proxy
        proxy.close()
