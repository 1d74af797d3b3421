"""What the HTTP tests share: the admin token their apps are configured with, a seed."""

from __future__ import annotations

ADMIN_TOKEN = "test-admin-token"
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def seed(client):
    for key, content in [
        ("preference:typescript", "TypeScript for frontend work"),
        ("decision:postgres", "Postgres for this project"),
        ("pet:cat", "cat named Biscuit"),
    ]:
        client.post("/api/memory", json={"apiKeyId": "key_a", "key": key, "content": content})
