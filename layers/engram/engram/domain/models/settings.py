"""Stored per-deployment memory settings (SPEC sections 10 and 11), as a model.

Out-of-range numbers are refused, not clamped (a ``retentionDays`` typo must not
delete a month of memories); the UI's ``recent`` strategy maps to ``exact`` and an
unknown strategy to ``hybrid``, as in the reference. Wrong types and unknown fields
are refused too (``MemorySettingsUpdate`` forbids extras).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    WithJsonSchema,
    field_validator,
)

from engram.domain.errors import InvalidInputError
from engram.domain.models.common import (
    JSON_INT,
    JSON_NUMBER,
    ApiModel,
    InjectionMode,
    Strategy,
    StrategyName,
)
from engram.domain.models.hosts import URL_HOST_PATTERN
from engram.domain.urlpolicy import check_endpoint_url

__all__ = [
    "MAX_TOKENS_LIMIT",
    "MemorySettings",
    "MemorySettingsUpdate",
    "is_secret_field",
    "is_secret_header",
    "map_credentials",
    "merge_backend_configs",
]

MAX_TOKENS_LIMIT = 16_000


def _vector_store(value: Any) -> Any:
    # The reference calls its embedded store "sqlite-vec"; ours is libSQL's native vectors.
    return "libsql" if value == "sqlite-vec" else value


def _backend(value: Any) -> Any:
    return "libsql" if value == "sqlite" else value


OptionalText = Annotated[str, Field(max_length=2048)] | None

# Fields of a backend's configuration that hold a credential: stored, used, never returned.
_SECRET_FIELD = re.compile(
    r"^(?:api[_-]?key|apikey|token|access[_-]?token|auth[_-]?token|secret|client[_-]?secret|"
    r"password|passwd|auth(?:orization)?|bearer|credentials?|private[_-]?key|access[_-]?key|"
    r"secret[_-]?key|integration[_-]?token)$",
    re.IGNORECASE,
)


def is_secret_field(name: str) -> bool:
    return bool(_SECRET_FIELD.match(name))


def _has(name: str) -> str:
    return "has" + name[:1].upper() + name[1:]


# A backend's headers are write-only, whatever their names: a credential travels under
# names no list can know (``Signature``, ``X-Hub-Signature``, ``X-Session``). Answers
# carry their names only (``secretHeaders``).
def is_secret_header(name: str) -> bool:
    del name
    return True


def _public_config(config: dict[str, Any]) -> dict[str, Any]:
    shown = {k: v for k, v in config.items() if not is_secret_field(k) and k != "headers"}
    for name, value in config.items():
        if is_secret_field(name):
            shown[_has(name)] = bool(value)
    headers = config.get("headers")
    if isinstance(headers, dict) and headers:
        shown["secretHeaders"] = sorted(headers)
    return shown


def _merge_headers(current: Any, sent: Any) -> Any:
    """Headers after an update: a header the update leaves out keeps its stored value (it
    was never shown); ``""`` or ``null`` removes a header; a new value replaces it."""
    kept = current if isinstance(current, dict) else {}
    if sent is not None and not isinstance(sent, dict):
        return sent  # not headers: the configuration's validation refuses it
    sent = sent or {}
    named = {k.lower() for k in sent}
    merged = {k: v for k, v in kept.items() if is_secret_header(k) and k.lower() not in named}
    merged.update({k: v for k, v in sent.items() if v not in ("", None)})
    return merged


def map_credentials(
    namespace: str, document: dict[str, Any], change: Callable[[str], str]
) -> dict[str, Any]:
    """A stored settings document (``memory`` or ``qdrant``, field names as stored) with
    every credential string passed through ``change`` (sealed on the way to the table,
    opened on the way back): backends' secret fields and every header value, Qdrant's
    API key. Changed in place, and returned."""
    if namespace == "qdrant":
        if isinstance(document.get("api_key"), str) and document["api_key"]:
            document["api_key"] = change(document["api_key"])
        return document
    configs = document.get("backend_configs")
    for config in configs.values() if isinstance(configs, dict) else ():
        if not isinstance(config, dict):
            continue
        for name, value in config.items():
            if is_secret_field(name) and isinstance(value, str) and value:
                config[name] = change(value)
        headers = config.get("headers")
        if isinstance(headers, dict):
            for name, value in headers.items():
                if isinstance(value, str) and value:
                    headers[name] = change(value)
    return document


def merge_backend_configs(
    current: dict[str, dict[str, Any]], changes: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Backend configs after an update. Credentials are write-only: a config sent back as
    it was read (without its key, with ``hasApiKey``) keeps the stored key; ``""`` or
    ``null`` removes it; a new value replaces it. ``has*`` flags are never stored. Secret
    headers follow the same rule (``secretHeaders``, their names, is never stored)."""
    merged: dict[str, dict[str, Any]] = {}
    for backend, config in changes.items():
        kept = {
            k: v
            for k, v in current.get(backend, {}).items()
            if is_secret_field(k) and k not in config
        }
        fresh = {
            k: v
            for k, v in config.items()
            if not (k.startswith("has") and is_secret_field(k[3:]))
            and not (is_secret_field(k) and v in ("", None))
            and k != "secretHeaders"
        }
        headers = _merge_headers(current.get(backend, {}).get("headers"), config.get("headers"))
        if headers:
            fresh["headers"] = headers
        else:
            fresh.pop("headers", None)
        merged[backend] = {**kept, **fresh}
    return merged


_PORT = "(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?"
# What the URL policy accepts, as far as a pattern can say it: http(s), a host (a DNS
# name of valid labels or bracketed IPv6, as for Qdrant's host), an optional port and
# path; no credentials, query or fragment. Empty removes the URL. What no pattern says
# (a name over 253 characters, a metadata host or address) keeps its 422.
_ENDPOINT = f"^\\s*(https?://{URL_HOST_PATTERN}{_PORT}(/[^?#\\s]*)?)?\\s*$"


# A user-configured endpoint (remote embeddings, the LLM extractor): its schema states
# what the URL policy accepts; the policy itself checks it on the way in.
EndpointUrl = Annotated[
    OptionalText,
    WithJsonSchema(
        {"anyOf": [{"type": "string", "maxLength": 2048, "pattern": _ENDPOINT}, {"type": "null"}]},
        mode="validation",
    ),
]


class MemorySettings(ApiModel):
    model_config = ConfigDict(extra="ignore")

    enabled: StrictBool = False
    max_tokens: Annotated[int, Field(ge=0, le=MAX_TOKENS_LIMIT), JSON_INT] = 2000
    retention_days: Annotated[int, Field(ge=1, le=365), JSON_INT] = 30
    # Any name: `recent` means exact, unknown ones hybrid (the same in the preview and
    # the chat proxy's x-engram-strategy header).
    strategy: StrategyName = Strategy.HYBRID
    # How hybrid combines keyword and vector evidence (engram/app/fusion.py).
    fusion: Literal["weighted", "rrf"] = "weighted"
    auto_summarize: StrictBool = False
    # prepend: memories in a system message of their own, before the application's;
    # cacheSafe: merged into the application's first system message (prompt caches keep
    # hitting). A request can choose with the x-engram-injection-mode header.
    injection_mode: InjectionMode = "prepend"
    # Below this a memory is not injected (bench/relevance.py calibrates the default):
    # a memory without a keyword match needs this cosine to the query; 0 turns it off.
    relevance_floor: Annotated[float, Field(ge=0.0, le=1.0), JSON_NUMBER] | None = Field(
        None, description="Cosine floor for memories without a keyword match; null: calibrated"
    )
    # Whose words facts are taken from: the user's turns only, or the assistant's too
    # (the reference's behaviour; those facts are marked and injected as the assistant's).
    extract_from: Literal["user", "both"] = "user"
    # Store the proxy's turns themselves as episodic memories of their session (the
    # user's; the assistant's too with extractFrom "both"), with role, speaker and time:
    # "what did I say about X last week" then has something to find. On with memory:
    # the facts extracted from a real conversation are a fraction of what was said
    # (docs/extraction.md), and events and plans are found in the turns themselves.
    store_conversation: StrictBool = True
    # Tokens of the profile (identity, health, home, family, pets, standing
    # instructions, pinned memories) injected with every request, out of maxTokens;
    # recall gets the rest. 0 turns the profile off (docs/retrieval.md measures it).
    profile_tokens: Annotated[int, Field(ge=0, le=MAX_TOKENS_LIMIT), JSON_INT] = 200
    embedding_source: Literal["auto", "remote", "static", "transformers"] = "auto"
    embedding_provider_model: OptionalText = None
    custom_base_url: EndpointUrl = None
    custom_model_id: OptionalText = None
    transformers_enabled: StrictBool = False
    # On by default, unlike the reference: the static model is local, free and fast,
    # so hybrid retrieval works out of the box.
    static_enabled: StrictBool = True
    rerank_enabled: StrictBool = False
    rerank_provider_model: OptionalText = None
    # Who learns from the chat: the rules (offline, free), a model over any
    # OpenAI-compatible endpoint, or the rules first and the model for what they leave.
    extractor: Literal["rules", "llm", "rules+llm"] = "rules"
    # The model's endpoint (the upstream's when unset) and name; its key is the
    # deployment's ENGRAM_EXTRACTOR_API_KEY (or, for the upstream, the upstream's key).
    extractor_base_url: EndpointUrl = None
    extractor_model: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    # Tokens (prompt and answer) the model may spend per API key per UTC day; 0: none.
    extractor_daily_tokens: Annotated[int, Field(ge=0, le=100_000_000), JSON_INT] = 200_000
    vector_store: Annotated[
        Literal["auto", "libsql", "qdrant"],
        BeforeValidator(_vector_store),
        WithJsonSchema({"enum": ["auto", "libsql", "qdrant", "sqlite-vec"]}, mode="validation"),
    ] = "auto"
    primary_backend: Annotated[str, BeforeValidator(_backend), Field(max_length=64)] = "libsql"
    fallback_backends: Annotated[list[str], Field(max_length=8)] = Field(default_factory=list)
    backend_configs: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @property
    def remote_embedding_model(self) -> str | None:
        """The model a remote embedder is asked for (``customModelId`` first)."""
        return self.custom_model_id or self.embedding_provider_model

    def chosen_embedding_source(self) -> Literal["remote", "static", "transformers"] | None:
        """The embedding source these settings choose, decided by the stored settings
        alone (None: none is enabled, retrieval is keyword only).

        ``auto`` means remote when a remote model is named, else static when enabled,
        else transformers when enabled. Whether this process holds what the source needs
        (a key, an endpoint, the model files) is deliberately not part of the choice:
        every process of a deployment must choose the same embedder, or each one that
        chose differently would reset the stored vectors to its own signature
        (``engram.app.vectors``). A process that cannot build the chosen embedder leaves
        vectors alone and says so instead of falling back to another one.
        """
        if self.embedding_source != "auto":
            return self.embedding_source
        if self.remote_embedding_model:
            return "remote"
        if self.static_enabled:
            return "static"
        if self.transformers_enabled:
            return "transformers"
        return None

    def public(self) -> MemorySettings:
        """These settings as an API may show them: backend credentials replaced by
        ``has<Field>`` flags (``apiKey`` -> ``hasApiKey: true``)."""
        configs = {name: _public_config(c) for name, c in self.backend_configs.items()}
        return self.model_copy(update={"backend_configs": configs})


class MemorySettingsUpdate(MemorySettings):
    """A partial update: only the fields sent change; unknown fields are an error."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("custom_base_url", "extractor_base_url")
    @classmethod
    def _safe_url(cls, value: str | None) -> str | None:
        # Checked on the way in (http(s), no credentials, no query, no metadata host),
        # and again, with DNS, before the remote embedder calls it.
        if value is None or not value.strip():
            return None
        try:
            return check_endpoint_url(value)
        except InvalidInputError as exc:
            raise ValueError(exc.message) from exc
