"""The MCP function as Lambda runs it, with the sample events: initialize, tools/list and
tools/call answered as the local server answers them."""

from __future__ import annotations

import json

from engram import Config, load_config, open_engine
from engram.domain.models import ApiKeyCreate
from shared.http import create_app
from tests.integration.http.test_lambda_handlers import body_of, comparable, scrub, via_http
from tests.support.lambda_support import LambdaContext, live_server, load_event, load_function

EVENTS = ["mcp_server_initialize", "mcp_server_tools_list", "mcp_server_tools_call"]


def _event(name: str, secret: str) -> dict:
    event = load_event(name)
    event["headers"]["authorization"] = f"Bearer {secret}"
    return event


def _secret(url: str) -> str:
    engine = open_engine(Config(db_url=url))
    try:
        return engine.keys.create(ApiKeyCreate(name="mcp")).secret
    finally:
        engine.close()


def test_the_sample_events_without_a_real_key_get_401(lambda_env):
    response = load_function("mcp_server").handler(load_event(EVENTS[1]), LambdaContext())
    assert response["statusCode"] == 401
    assert json.loads(body_of(response))["error"]["message"]


def test_lambda_answers_initialize_list_and_call(lambda_env):
    handler = load_function("mcp_server").handler
    secret = _secret(lambda_env)
    answers = {}
    for name in EVENTS:
        response = handler(_event(name, secret), LambdaContext())
        assert response["statusCode"] == 200, body_of(response)
        assert response["headers"]["content-type"].startswith("application/json")
        assert "mcp-session-id" not in response["headers"]
        answers[name] = json.loads(body_of(response))
    assert answers["mcp_server_initialize"]["result"]["serverInfo"]["name"] == "engram"
    assert len(answers["mcp_server_tools_list"]["result"]["tools"]) == 6
    call = answers["mcp_server_tools_call"]["result"]
    assert call["isError"] is False
    assert call["structuredContent"]["memory"]["type"] == "procedural"


def test_lambda_and_local_server_give_the_same_answers(lambda_env, tmp_path, monkeypatch):
    handler = load_function("mcp_server").handler
    secret = _secret(lambda_env)
    through_lambda = []
    for name in EVENTS:
        response = handler(_event(name, secret), LambdaContext())
        content_type = response["headers"]["content-type"]
        through_lambda.append((response["statusCode"], comparable(body_of(response), content_type)))

    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME")
    monkeypatch.setenv("ENGRAM_DB_URL", f"file:{tmp_path / 'local.db'}")
    config = load_config()
    local = open_engine(config, jobs="inline")
    local_secret = local.keys.create(ApiKeyCreate(name="mcp")).secret
    through_server = []
    with live_server(create_app(config=config, engine=lambda: local)) as base_url:
        for name in EVENTS:
            response = via_http(base_url, _event(name, local_secret))
            content_type = response.headers["content-type"]
            through_server.append(
                (response.status_code, comparable(response.content, content_type))
            )
    local.close()

    def scrub_key(answer):  # each side's key has its own id; the text content is JSON too
        answer = scrub(_parse_text(answer))
        text = json.dumps(answer)
        for value in set(_key_ids(answer)):
            text = text.replace(value, "KEY")
        return json.loads(text)

    for name, left, right in zip(EVENTS, through_lambda, through_server, strict=True):
        assert scrub_key(left) == scrub_key(right), name


def _key_ids(value):
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "apiKeyId" and isinstance(v, str):
                yield v
            else:
                yield from _key_ids(v)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _key_ids(item)


def _parse_text(value):
    if isinstance(value, dict):
        return {
            k: json.loads(v) if k == "text" and v.startswith("{") else _parse_text(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_parse_text(item) for item in value]
    return value


def test_mcp_is_left_out_of_the_openapi_document():
    from shared.http import create_app

    paths = create_app().openapi()["paths"]
    assert "/mcp" not in paths and "/api/memory" in paths
