"""What the schema cannot say, told to the generator (SCHEMATHESIS_HOOKS points here).

JSON Schema has no notion of "now": a memory whose ``expiresAt`` is already past is
refused (422, it would be stored and never seen). Generated cases that happen to pick
a past date get a future one instead, so positive cases stay positive; a negative
case keeps whatever makes it negative.

Nor can it say which hosts exist: a generated Qdrant host is a made-up name, after which
every operation that must reach Qdrant (search, cleanup, a Qdrant reindex) answers 503,
truthfully. Valid generated hosts are replaced by "" (Qdrant's embedded mode), so those
operations are exercised for real; invalid hosts are left alone, to be refused.
(Qdrant down is the fault suite's business: tests/reliability/test_faults.py.)

Nor which memory backends exist: a backend name is any string to the schema, but only
libsql, a kind (http, obsidian, notion) or a configured name with a type is accepted,
and a configuration needs its kind's fields (422 otherwise, naming the field). Valid
generated backend fields are replaced by the default chain (libSQL alone, no
configurations); invalid ones are left alone, to be refused. (Backends themselves are
exercised against stand-in servers: tests/integration/http/routers/test_backends.py.)

Nor that a model extractor needs a model: a generated "llm" or "rules+llm" without
``extractorModel`` becomes "rules" (the model path: tests/integration/engine/
test_llm_extractor.py).

Nor every limit of an endpoint URL: the schema states its shape (scheme, host labels,
port, path), not that a name stays within 253 characters or avoids a cloud metadata
service. A schema-valid URL that the policy still refuses is removed (null) instead.

And one guard for the generator itself: Hypothesis describes a filtered strategy's
lambda by parsing its source (``ast.parse``), and CPython 3.11's AST constructor keeps
its recursion depth per interpreter, not per thread: two workers parsing at once fail
with "AST constructor recursion depth mismatch" (a runtime error of the run, not a
finding about Engram). Every ``ast.parse`` of the run (those descriptions and any other
source Hypothesis or Schemathesis reads) is made one at a time.
"""

from __future__ import annotations

import ast
import re
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import schemathesis
from hypothesis.internal import lambda_sources

from engram.domain.errors import InvalidInputError
from engram.domain.models.hosts import HOST_PATTERN, MAX_HOST_CHARS
from engram.domain.models.settings import MemorySettingsUpdate
from engram.domain.urlpolicy import check_endpoint_url

_parsing = threading.RLock()  # re-entrant: a description parses inside the lock
_describe = lambda_sources.lambda_description
_parse = ast.parse


def _one_at_a_time(f: Any) -> str:
    with _parsing:
        return _describe(f)


def _parse_alone(*args: Any, **kwargs: Any) -> Any:
    with _parsing:
        return _parse(*args, **kwargs)


lambda_sources.lambda_description = _one_at_a_time
ast.parse = _parse_alone

_FUTURE = (datetime.now(UTC) + timedelta(days=3650)).isoformat()


def _future(item: Any) -> None:
    if not isinstance(item, dict) or not isinstance(item.get("expiresAt"), str):
        return
    try:
        moment = datetime.fromisoformat(item["expiresAt"].replace("Z", "+00:00"))
    except ValueError:
        return  # not a date: that is what this case tests
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if moment <= datetime.now(UTC) + timedelta(days=1):
        item["expiresAt"] = _FUTURE


_HOST = re.compile(HOST_PATTERN)  # the schema's own pattern and length


def _embedded_qdrant(case: Any) -> None:
    body = case.body
    if case.path == "/api/settings/qdrant" and isinstance(body, dict):
        host = body.get("host")
        if isinstance(host, str) and _HOST.match(host) and len(host) <= MAX_HOST_CHARS:
            body["host"] = ""


def _default_backends(case: Any) -> None:
    body = case.body
    if case.path != "/api/settings/memory" or not isinstance(body, dict):
        return
    primary = body.get("primaryBackend")
    if isinstance(primary, str) and len(primary) <= 64:
        body["primaryBackend"] = "libsql"
    fallbacks = body.get("fallbackBackends")
    if (
        isinstance(fallbacks, list)
        and len(fallbacks) <= 8
        and all(isinstance(name, str) for name in fallbacks)
    ):
        body["fallbackBackends"] = []
    configs = body.get("backendConfigs")
    if isinstance(configs, dict) and all(isinstance(c, dict) for c in configs.values()):
        body["backendConfigs"] = {}


_URL = MemorySettingsUpdate.model_json_schema(by_alias=True)["properties"]["customBaseUrl"][
    "anyOf"
][0]
_URL_PATTERN = re.compile(_URL["pattern"])


def _reachable_endpoints(case: Any) -> None:
    body = case.body
    if case.path != "/api/settings/memory" or not isinstance(body, dict):
        return
    for field in ("customBaseUrl", "extractorBaseUrl"):
        url = body.get(field)
        if not isinstance(url, str) or len(url) > _URL["maxLength"]:
            continue
        if not _URL_PATTERN.search(url) or not url.strip():
            continue
        try:
            check_endpoint_url(url, field)
        except InvalidInputError:
            body[field] = None


def _extractor_with_model(case: Any) -> None:
    # A model extractor needs its model (422 otherwise, naming extractorModel): the schema
    # cannot tie one field to another. A valid generated mode without a model reads with
    # the rules instead; a mode the schema refuses is left alone, to be refused.
    body = case.body
    if case.path != "/api/settings/memory" or not isinstance(body, dict):
        return
    if body.get("extractorModel"):
        return
    if body.get("extractor") in ("llm", "rules+llm") or (
        "extractorModel" in body and "extractor" not in body  # a stored model taken away
    ):
        body["extractor"] = "rules"


@schemathesis.hook
def map_case(ctx: Any, case: Any) -> Any:
    _embedded_qdrant(case)
    _default_backends(case)
    _reachable_endpoints(case)
    _extractor_with_model(case)
    body = case.body
    if isinstance(body, list):
        for item in body:
            _future(item)
    else:
        _future(body)
    return case
