"""What the browser tests ask the API directly: to set up state and to check the page's
effect, never to stand in for the page."""

from __future__ import annotations

import httpx

from tests.support.server import Server


def add(server: Server, owner: str, content: str, **fields: object) -> dict[str, object]:
    body = {"apiKeyId": owner, "content": content, **fields}
    response = httpx.post(f"{server.base}/api/memory", json=body, headers=server.admin)
    response.raise_for_status()
    return dict(response.json())


def listed(server: Server, owner: str) -> list[dict[str, object]]:
    response = httpx.get(
        f"{server.base}/api/memory", params={"apiKeyId": owner, "limit": 500}, headers=server.admin
    )
    return list(response.json()["data"])
