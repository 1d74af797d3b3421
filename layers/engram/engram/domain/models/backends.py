"""Memory backends (SPEC section 8): each backend's configuration, and what the engine
reports about them.

A configuration is stored in ``backendConfigs[name]`` of the memory settings. Three
kinds exist besides libSQL: ``http`` (any REST API, described by endpoint templates
and field mappings), ``obsidian`` (the Local REST API plugin) and ``notion`` (a
database through Notion's public API). A name is its kind (``obsidian``) or any other
name whose config says ``type``. Credentials (``apiKey``, secret-named headers) are
write-only: stored, used, never returned (``MemorySettings.public``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, SecretStr, StrictBool, ValidationError, field_validator

from engram.domain.errors import InvalidInputError
from engram.domain.models.common import JSON_INT, ApiModel, credential
from engram.domain.urlpolicy import check_endpoint_url

__all__ = [
    "BACKEND_KINDS",
    "MAX_BACKEND_CONFIGS",
    "BackendConfig",
    "BackendEndpoints",
    "BackendFailure",
    "BackendFields",
    "BackendPathParams",
    "BackendQueryParams",
    "BackendStatus",
    "BackendsStatus",
    "HttpBackendConfig",
    "NotionBackendConfig",
    "ObsidianBackendConfig",
    "backend_kind",
    "check_backends",
    "parse_backend_config",
]

BACKEND_KINDS = ("http", "obsidian", "notion")

_FORBID = ConfigDict(extra="forbid")
# A header name is an HTTP token; a value has no control characters (no header injection).
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$")
# What an HTTP client sends as a header value: printable ASCII and tabs (httpx encodes
# values as ASCII; anything else would fail every request, not the save).
_HEADER_VALUE = re.compile(r"^[\t\x20-\x7e]{0,4096}$")
# A path template: starts with "/", no scheme, host, query or fragment ("{id}" allowed).
_TEMPLATE = re.compile(r"^/[A-Za-z0-9._~!$&'()*+,;=:@%/{}-]{0,512}$")
# A JSON field path into a remote body: dotted names ("data.items", "properties.Name").
_FIELD_PATH = re.compile(r"^[A-Za-z0-9_$@ -]{1,64}(\.[A-Za-z0-9_$@ -]{1,64}){0,7}$")
_PARAM = re.compile(r"^[A-Za-z0-9_.\[\]-]{1,64}$")

TimeoutMs = Annotated[int, Field(ge=100, le=120_000), JSON_INT]
Template = Annotated[str, Field(pattern=_TEMPLATE.pattern)]
FieldPath = Annotated[str, Field(pattern=_FIELD_PATH.pattern)]
Param = Annotated[str, Field(pattern=_PARAM.pattern)]


def _base_url(value: str) -> str:
    try:
        return check_endpoint_url(value, field="baseUrl")
    except InvalidInputError as exc:
        raise ValueError(exc.message) from None


def _headers(value: dict[str, str]) -> dict[str, str]:
    if len(value) > 32:
        raise ValueError("at most 32 headers")
    for name, text in value.items():
        if not _HEADER_NAME.match(name):
            raise ValueError("a header name must be an HTTP token")
        if not isinstance(text, str) or not _HEADER_VALUE.match(text):
            raise ValueError(f"header {name} must be printable ASCII of at most 4096 characters")
    return value


class _Remote(ApiModel):
    model_config = _FORBID

    api_key: SecretStr | None = Field(None, description="Sent as a bearer token; write-only")
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_ms: TimeoutMs = 5000

    @field_validator("headers")
    @classmethod
    def _valid_headers(cls, value: dict[str, str]) -> dict[str, str]:
        return _headers(value)

    @field_validator("api_key")
    @classmethod
    def _sendable_key(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            credential(value.get_secret_value())
        return value

    @property
    def timeout_s(self) -> float:
        return self.timeout_ms / 1000


class BackendEndpoints(ApiModel):
    """Path templates under ``baseUrl``; ``{id}`` (or the ``pathParams`` name) is the id."""

    model_config = _FORBID

    search: Template = "/memories/search"
    create: Template = "/memories"
    list: Template = "/memories"
    get: Template = "/memories/{id}"
    update: Template = "/memories/{id}"
    delete: Template = "/memories/{id}"
    health: Template = "/health"


class BackendQueryParams(ApiModel):
    """The remote API's names of the query parameters Engram sends."""

    model_config = _FORBID

    query: Param = "query"
    api_key_id: Param = "apiKeyId"
    limit: Param = "limit"
    offset: Param = "offset"
    type: Param = "type"
    session_id: Param = "sessionId"
    strategy: Param = "strategy"
    max_tokens: Param = "maxTokens"


class BackendPathParams(ApiModel):
    model_config = _FORBID

    id: Param = "id"


class BackendFields(ApiModel):
    """Where things live in the remote JSON (dotted paths), in requests and responses.
    ``items`` is the list in a list or search response ("" when the body is the list)."""

    model_config = _FORBID

    items: Annotated[str, Field(pattern=f"^$|{_FIELD_PATH.pattern}")] = "data"
    total: FieldPath = "total"
    id: FieldPath = "id"
    content: FieldPath = "content"
    key: FieldPath = "key"
    score: FieldPath = "score"
    owner: FieldPath = "apiKeyId"
    type: FieldPath = "type"
    session_id: FieldPath = "sessionId"
    metadata: FieldPath = "metadata"
    created_at: FieldPath = "createdAt"
    updated_at: FieldPath = "updatedAt"


class HttpBackendConfig(_Remote):
    """Any REST API that stores memories (the reference's GenericMemoryBackend)."""

    type: Literal["http"] = "http"
    base_url: Annotated[str, Field(max_length=2048)]
    endpoints: BackendEndpoints = Field(default_factory=BackendEndpoints)
    query_params: BackendQueryParams = Field(default_factory=BackendQueryParams)
    path_params: BackendPathParams = Field(default_factory=BackendPathParams)
    fields: BackendFields = Field(default_factory=BackendFields)
    update_method: Literal["PUT", "PATCH"] = "PUT"

    @field_validator("base_url")
    @classmethod
    def _safe(cls, value: str) -> str:
        return _base_url(value)


class ObsidianBackendConfig(_Remote):
    """An Obsidian vault through the Local REST API plugin: one Markdown note per memory
    (front matter holds the owner, key, type...) under ``folder``."""

    type: Literal["obsidian"] = "obsidian"
    # The plugin's plain-HTTP port (the HTTPS one, 27124, has a self-signed certificate:
    # set verifyTls false, or trust its certificate).
    base_url: Annotated[str, Field(max_length=2048)] = "http://127.0.0.1:27123"
    folder: Annotated[str, Field(pattern=r"^[A-Za-z0-9 _-]{1,64}(/[A-Za-z0-9 _-]{1,64}){0,4}$")] = (
        "Engram"
    )
    verify_tls: StrictBool = True

    @field_validator("base_url")
    @classmethod
    def _safe(cls, value: str) -> str:
        return _base_url(value)


class NotionBackendConfig(_Remote):
    """A Notion database: one page per memory, its fields in properties."""

    type: Literal["notion"] = "notion"
    base_url: Annotated[str, Field(max_length=2048)] = "https://api.notion.com/v1"
    database_id: Annotated[str, Field(pattern=r"^[A-Za-z0-9-]{32,36}$")]
    notion_version: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")] = "2022-06-28"
    # The database's property names (a title, and rich-text properties for the rest).
    title_property: Annotated[str, Field(min_length=1, max_length=64)] = "Name"
    content_property: Annotated[str, Field(min_length=1, max_length=64)] = "Content"
    owner_property: Annotated[str, Field(min_length=1, max_length=64)] = "API Key"
    key_property: Annotated[str, Field(min_length=1, max_length=64)] = "Key"
    type_property: Annotated[str, Field(min_length=1, max_length=64)] = "Type"
    session_property: Annotated[str, Field(min_length=1, max_length=64)] = "Session"
    metadata_property: Annotated[str, Field(min_length=1, max_length=64)] = "Metadata"

    @field_validator("base_url")
    @classmethod
    def _safe(cls, value: str) -> str:
        return _base_url(value)


BackendConfig = HttpBackendConfig | ObsidianBackendConfig | NotionBackendConfig
_MODELS: dict[str, type[HttpBackendConfig | ObsidianBackendConfig | NotionBackendConfig]] = {
    "http": HttpBackendConfig,
    "obsidian": ObsidianBackendConfig,
    "notion": NotionBackendConfig,
}


def backend_kind(name: str, config: Mapping[str, Any] | None) -> str | None:
    """``libsql``, or the kind of a remote backend: its config's ``type``, else its name
    when that is a kind (``obsidian``); None for a name Engram cannot build."""
    if name == "libsql":
        return "libsql"
    declared = (config or {}).get("type")
    kind = declared if declared is not None else name
    return kind if isinstance(kind, str) and kind in _MODELS else None


def parse_backend_config(name: str, config: Mapping[str, Any]) -> BackendConfig:
    """The configuration of backend ``name``, or ``InvalidInputError`` naming the field
    (``backendConfigs.<name>.<field>``). Messages never quote the values: a mistyped
    key must not come back in an error."""
    kind = backend_kind(name, config)
    field = f"backendConfigs.{name}"
    if kind is None or kind == "libsql":
        raise InvalidInputError(
            f"backend {name} needs a type (one of {', '.join(BACKEND_KINDS)})",
            field=f"{field}.type",
        )
    try:
        return _MODELS[kind].model_validate({**config, "type": kind})
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InvalidInputError(
            f"{field}.{where}: {first['msg']}", field=f"{field}.{where}"
        ) from None


class BackendStatus(ApiModel):
    name: str
    kind: str = Field(description="libsql, http, obsidian or notion")
    role: Literal["primary", "fallback", "configured"]
    healthy: bool | None = Field(description="null: not checked")
    latency_ms: float | None = None
    error: str | None = Field(None, description="Why it is not usable, when it is not")


class BackendsStatus(ApiModel):
    primary: str
    fallbacks: list[str]
    backends: list[BackendStatus]


class BackendFailure(ApiModel):
    backend: str
    error: str


MAX_BACKEND_CONFIGS = 16
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _known(name: str, configs: Mapping[str, Mapping[str, Any]], field: str) -> None:
    if backend_kind(name, configs.get(name)) is None:
        raise InvalidInputError(
            f"unknown backend {name!r}: libsql, {', '.join(BACKEND_KINDS)}, or a name"
            " configured in backendConfigs with a type",
            field=field,
        )


def check_backends(
    primary: str, fallbacks: Sequence[str], configs: Mapping[str, Mapping[str, Any]]
) -> None:
    """The backend settings as a whole, checked when any of them changes (SPEC section 8).

    The primary and each fallback must be a backend Engram can build (libSQL, a kind, or
    a configured name with a ``type``); a fallback may not repeat the primary or another
    fallback; a backend in use needs its required fields (Obsidian and Notion an
    ``apiKey``, Notion a ``databaseId``, the generic backend a ``baseUrl``); every stored
    configuration must parse. Each refusal is an ``InvalidInputError`` naming the field.
    """
    if len(configs) > MAX_BACKEND_CONFIGS:
        raise InvalidInputError(
            f"at most {MAX_BACKEND_CONFIGS} backend configs", field="backendConfigs"
        )
    parsed: dict[str, BackendConfig] = {}
    for name, config in configs.items():
        if not _NAME.match(name) or name == "libsql":
            raise InvalidInputError(
                "a backend name is 1-64 letters, digits, _ or - (libsql takes no config)",
                field=f"backendConfigs.{name[:64]}",
            )
        parsed[name] = parse_backend_config(name, config)
    _known(primary, configs, "primaryBackend")
    seen = {primary}
    for index, name in enumerate(fallbacks):
        field = f"fallbackBackends.{index}"
        _known(name, configs, field)
        if name == primary:
            raise InvalidInputError(f"{name} is already the primary backend", field=field)
        if name in seen:
            raise InvalidInputError(f"{name} is listed twice", field=field)
        seen.add(name)
    for name in [primary, *fallbacks]:
        if name == "libsql":
            continue
        used = parsed.get(name) or parse_backend_config(name, {})
        if isinstance(used, ObsidianBackendConfig | NotionBackendConfig) and not (
            used.api_key and used.api_key.get_secret_value()
        ):
            raise InvalidInputError(
                f"backend {name} needs apiKey", field=f"backendConfigs.{name}.apiKey"
            )
