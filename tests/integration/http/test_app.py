"""The app as a whole: every route behind the admin token, the OpenAPI document."""

from tests.support.http import AUTH


def test_every_route_needs_the_admin_token(app, anonymous):
    paths = app.openapi()["paths"]
    assert len(paths) >= 11
    for path, operations in paths.items():
        concrete = path.replace("{memory_id}", "x").replace("{key_id}", "x")
        for method in operations:
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic x"}):
                response = anonymous.request(method.upper(), concrete, headers=headers, json={})
                assert response.status_code == 401, (method, path, headers)
                assert response.headers["www-authenticate"] == "Bearer"
                assert response.json()["error"]["type"] == "authentication_error"


def test_management_is_closed_without_a_configured_token(engine):
    from fastapi.testclient import TestClient

    from engram import Config
    from shared.http import create_app

    app = create_app(config=Config(db_url=engine.config.db_url), engine=lambda: engine)
    response = TestClient(app).get("/api/memory", headers=AUTH)
    assert response.status_code == 401
    assert "ENGRAM_ADMIN_TOKEN" in response.json()["error"]["message"]


def test_openapi_describes_bodies_and_responses(app):
    spec = app.openapi()
    create = spec["paths"]["/api/memory"]["post"]
    assert "MemoryCreate" in str(create["requestBody"])
    assert "Memory" in str(create["responses"]["201"])
    preview = spec["paths"]["/api/memory/retrieve-preview"]["post"]
    assert "PreviewResult" in str(preview["responses"]["200"])
    assert "bearer" in str(spec["components"]["securitySchemes"]).lower()
