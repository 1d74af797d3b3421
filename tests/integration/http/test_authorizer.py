"""The HTTP API's authorizer as API Gateway calls it (payload 2.0, simple responses), over
a real libSQL file: the admin token and active API keys pass, anything else does not,
and a database it cannot reach is an error (never a cached refusal)."""

from __future__ import annotations

import copy

import pytest

from engram import Config, open_engine
from engram.domain.errors import StorageError
from engram.domain.models import ApiKeyCreate
from tests.support.lambda_support import LambdaContext, load_event, load_function


def ask(handler, authorization: str | None) -> dict:
    event = copy.deepcopy(load_event("api_authorizer_request"))
    if authorization is None:
        del event["headers"]["authorization"]
        event["identitySource"] = []
    else:
        event["headers"]["authorization"] = authorization
        event["identitySource"] = [authorization]
    return handler(event, LambdaContext())


@pytest.fixture
def handler(lambda_env):
    return load_function("api_authorizer").handler


def test_the_sample_event_with_the_admin_token_passes(handler):
    assert handler(load_event("api_authorizer_request"), LambdaContext()) == {"isAuthorized": True}


def test_an_active_api_key_passes_and_a_revoked_one_does_not(handler, lambda_env):
    admin = open_engine(Config(db_url=lambda_env))
    key = admin.keys.create(ApiKeyCreate(name="gate"))
    assert ask(handler, f"Bearer {key.secret}") == {"isAuthorized": True}
    assert ask(handler, f"bearer {key.secret}") == {"isAuthorized": True}  # scheme: any case
    admin.keys.revoke(key.id)
    assert ask(handler, f"Bearer {key.secret}") == {"isAuthorized": False}


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer ",
        "Bearer egm_not-a-key",
        "Bearer test-admin-token-but-longer",
        "Basic dGVzdC1hZG1pbi10b2tlbg==",
        "test-admin-token",  # no scheme
    ],
)
def test_anything_else_is_refused(handler, authorization):
    assert ask(handler, authorization) == {"isAuthorized": False}


def test_a_database_it_cannot_reach_is_an_error_not_a_refusal(monkeypatch, lambda_env):
    # A refusal would be cached by API Gateway for the credential; an error is not.
    monkeypatch.setenv("ENGRAM_DB_URL", "http://127.0.0.1:9")  # the discard port: refused
    handler = load_function("api_authorizer").handler
    with pytest.raises(StorageError, match="unreachable"):
        ask(handler, "Bearer egm_0123456789abcdef")
