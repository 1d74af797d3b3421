"""What the HTTP tests share: the admin token their apps are configured with, a seed, and
the chat proxy's wiring (an engine behind the app, a stub upstream in front of it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fastapi.testclient import TestClient
from pydantic import SecretStr

from engram import Config
from shared.http import create_app

ADMIN_TOKEN = "test-admin-token"
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def seed(client):
    for key, content in [
        ("preference:typescript", "TypeScript for frontend work"),
        ("decision:postgres", "Postgres for this project"),
        ("pet:cat", "cat named Biscuit"),
    ]:
        client.post("/api/memory", json={"apiKeyId": "key_a", "key": key, "content": content})


def upstream_config(config: Config, stub, **more) -> Config:
    """``config`` with the chat proxy's upstream pointed at ``stub`` (a StubUpstream)."""
    update = {"upstream_base_url": stub.url, "upstream_api_key": SecretStr("upstream-secret")}
    return config.model_copy(update=update | more)


def proxy_app(engine):
    """The HTTP app over an engine the test already holds (its settings, its queue)."""
    config = Config(db_url=engine.config.db_url, admin_token=SecretStr(ADMIN_TOKEN))
    return create_app(config=config, engine=lambda: engine)


@contextmanager
def speaking_as(app, key) -> Iterator[TestClient]:
    """A client of ``app`` whose requests carry ``key``'s secret, as a chat app's would."""
    with TestClient(app, headers={"Authorization": f"Bearer {key.secret}"}) as client:
        yield client
