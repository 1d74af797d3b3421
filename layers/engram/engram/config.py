"""Deployment configuration: the one settings object read from the environment.

Environment variable names live here and nowhere else. The engine itself never
reads ``os.environ``: the edge (CLI, Lambda handler) calls ``Config()`` once and
hands the object to :func:`engram.wiring.build_engine`.

Deployment settings use the ``ENGRAM_`` prefix; the engine's tuning knobs keep
the reference system's ``MEMORY_*`` names so its documentation still applies.
Per-tenant behaviour (enabled, budget, strategy...) is not here: it is stored in
the database (:mod:`engram.app.settings`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from engram.domain.errors import ConfigError

__all__ = ["REMOTE_SCHEMES", "Config", "load_config"]

# Remote libSQL URLs (served over Hrana-over-HTTP; libsql:// and wss:// use HTTPS).
REMOTE_SCHEMES = ("libsql", "https", "http", "wss", "ws")


class Config(BaseSettings):
    model_config = SettingsConfigDict(
        extra="ignore", frozen=True, populate_by_name=True, env_ignore_empty=True
    )

    # Storage. `file:<path>` (embedded), `:memory:`, or `libsql://` / `https://` for a
    # remote libSQL server such as Turso, authenticated with the token.
    db_url: str = Field("file:.engram/engram.db", alias="ENGRAM_DB_URL")
    db_auth_token: SecretStr | None = Field(None, alias="ENGRAM_DB_AUTH_TOKEN")
    data_dir: Path = Field(Path(".engram"), alias="ENGRAM_DATA_DIR")
    db_cache_mb: int = Field(64, ge=2, le=4096, alias="ENGRAM_DB_CACHE_MB")
    # How long a write waits for another process's write lock (embedded file) before the
    # request fails with 503.
    db_busy_timeout_ms: int = Field(5000, ge=0, le=120_000, alias="ENGRAM_DB_BUSY_TIMEOUT_MS")
    # The longest a request to a remote libSQL server may take (each HTTP round trip);
    # past it the request fails with 503 and the next one starts afresh.
    db_timeout_s: float = Field(10.0, gt=0, le=300, alias="ENGRAM_DB_TIMEOUT_S")
    # Whether a query embeds its owner's pending memories first (one more read per query).
    # Unset: yes on a local file, no on a remote database, where the embedding worker and
    # the reindex schedule do it and each read is a network round trip.
    lazy_embedding: bool | None = Field(None, alias="ENGRAM_LAZY_EMBEDDING")

    # Keys sealing the credentials stored in settings (backend keys and headers, the
    # Qdrant key): base64 32-byte keys, comma-separated, the first sealing. Unset: a file
    # database keeps its own key beside it; a remote one cannot store credentials.
    secrets_key: SecretStr | None = Field(None, alias="ENGRAM_SECRETS_KEY")

    # Edges.
    admin_token: SecretStr | None = Field(None, alias="ENGRAM_ADMIN_TOKEN")
    # The API key `engram mcp` (MCP over stdio) acts for; HTTP callers send theirs as bearer.
    api_key: SecretStr | None = Field(None, alias="ENGRAM_API_KEY")
    upstream_base_url: str | None = Field(None, alias="ENGRAM_UPSTREAM_BASE_URL")
    upstream_api_key: SecretStr | None = Field(None, alias="ENGRAM_UPSTREAM_API_KEY")
    # The provider behind the upstream, when it serves one (decides system-role injection);
    # otherwise it is read from the model id (see engram.domain.messages.resolve_provider).
    upstream_provider: str | None = Field(None, alias="ENGRAM_UPSTREAM_PROVIDER")
    upstream_timeout_s: float = Field(120.0, gt=0, le=900, alias="ENGRAM_UPSTREAM_TIMEOUT_S")
    upstream_connect_timeout_s: float = Field(
        10.0, gt=0, le=120, alias="ENGRAM_UPSTREAM_CONNECT_TIMEOUT_S"
    )
    extraction_queue_url: str | None = Field(None, alias="ENGRAM_EXTRACTION_QUEUE_URL")
    embedding_queue_url: str | None = Field(None, alias="ENGRAM_EMBEDDING_QUEUE_URL")
    aws_endpoint_url: str | None = Field(None, alias="ENGRAM_AWS_ENDPOINT_URL")
    # Key for the remote embedding endpoint; the upstream's key is used when unset.
    embedding_api_key: SecretStr | None = Field(None, alias="ENGRAM_EMBEDDING_API_KEY")
    # Key for the LLM extractor's endpoint (settings extractorBaseUrl); the upstream's key
    # is used when unset and the extractor calls the upstream itself.
    extractor_api_key: SecretStr | None = Field(None, alias="ENGRAM_EXTRACTOR_API_KEY")
    # The longest one call to the LLM extractor may take; past it the turn is read by the
    # rules alone (rules+llm) or not at all (llm), and the chat is never affected.
    extractor_timeout_s: float = Field(30.0, gt=0, le=300, alias="ENGRAM_EXTRACTOR_TIMEOUT_S")
    # Where the secrets above live in a deployment (Secrets Manager secret ARNs or names,
    # SSM SecureString parameter ARNs or /paths): the Lambda glue (shared/secrets.py) reads
    # each at start-up into its field, so the values never sit in the environment. A value
    # set directly (the variables above, as locally) wins over its reference.
    db_auth_token_secret: str | None = Field(None, alias="ENGRAM_DB_AUTH_TOKEN_SECRET")
    admin_token_secret: str | None = Field(None, alias="ENGRAM_ADMIN_TOKEN_SECRET")
    upstream_api_key_secret: str | None = Field(None, alias="ENGRAM_UPSTREAM_API_KEY_SECRET")
    embedding_api_key_secret: str | None = Field(None, alias="ENGRAM_EMBEDDING_API_KEY_SECRET")
    extractor_api_key_secret: str | None = Field(None, alias="ENGRAM_EXTRACTOR_API_KEY_SECRET")
    secrets_key_secret: str | None = Field(None, alias="ENGRAM_SECRETS_KEY_SECRET")
    # A Qdrant server's URL, used when the stored Qdrant settings name no host.
    qdrant_url: str | None = Field(None, alias="ENGRAM_QDRANT_URL")
    # After POST /api/memory/reindex answers, keep embedding in the background for up to
    # this long (the local server); Lambda sets 0 and leaves the rest to the schedule.
    reindex_background_s: float = Field(300.0, ge=0, le=3600, alias="ENGRAM_REINDEX_BACKGROUND_S")
    # Request bodies: checked before authentication (413 over the limit). The chat limit
    # matches Lambda's own 6 MB cap on a request; raise it locally for large images.
    max_body_bytes: int = Field(1_048_576, ge=1024, le=1 << 30, alias="ENGRAM_MAX_BODY_BYTES")
    max_chat_body_bytes: int = Field(
        6_291_456, ge=1024, le=1 << 30, alias="ENGRAM_MAX_CHAT_BODY_BYTES"
    )
    # A bulk import's body (JSON array or NDJSON). The template lowers it in Lambda, where an
    # NDJSON body arrives base64-encoded inside the 6 MB invocation payload.
    max_import_bytes: int = Field(
        10 * 1024 * 1024, ge=1024, le=1 << 30, alias="ENGRAM_MAX_IMPORT_BYTES"
    )
    # Deepest nesting of arrays and objects accepted in a JSON body.
    max_json_depth: int = Field(64, ge=8, le=512, alias="ENGRAM_MAX_JSON_DEPTH")
    # Upper bound of the in-memory vector matrices (all owners together), in MiB.
    vector_cache_mb: int = Field(512, ge=16, le=65_536, alias="ENGRAM_VECTOR_CACHE_MB")
    # The most vector data (as stored: 4 bytes a dimension, 1 with int8) one key loads
    # into memory, in MiB. A cold process reads it all before its first answer (50 MiB,
    # 50,000 256-d vectors: 4.9 s from a stock sqld, bench/large_key.py); a larger key is
    # scored by SQL, or by Qdrant when it is enabled (docs/retrieval.md).
    vector_key_max_mb: float = Field(50.0, gt=0, le=65_536, alias="ENGRAM_VECTOR_KEY_MAX_MB")
    # Upper bound of the in-memory keyword postings (all owners together), in MiB; 0
    # leaves keyword scoring to FTS5 alone.
    keyword_cache_mb: int = Field(256, ge=0, le=65_536, alias="ENGRAM_KEYWORD_CACHE_MB")

    # How long a process trusts its cached copy of the stored settings. Writes made
    # through this process invalidate at once; the TTL bounds how long another
    # process (another Lambda instance) can serve stale settings.
    settings_cache_ttl_s: float = Field(5.0, ge=0, le=3600, alias="ENGRAM_SETTINGS_CACHE_TTL_S")

    # Engine tuning knobs (reference names).
    rrf_k: int = Field(60, ge=1, le=10_000, alias="MEMORY_RRF_K")
    vec_top_k: int = Field(20, ge=1, le=200, alias="MEMORY_VEC_TOP_K")
    vec_quantization: Literal["none", "int8"] = Field("none", alias="MEMORY_VEC_QUANTIZATION")
    embedding_cache_max: int = Field(1000, ge=0, le=1_000_000, alias="MEMORY_EMBEDDING_CACHE_MAX")
    embedding_cache_ttl_ms: int = Field(
        300_000, ge=0, le=86_400_000, alias="MEMORY_EMBEDDING_CACHE_TTL_MS"
    )
    # Which model files the local embedders load; unset: the one each source ships.
    transformers_model: str | None = Field(None, alias="MEMORY_TRANSFORMERS_MODEL")
    static_model: str | None = Field(None, alias="MEMORY_STATIC_MODEL")
    # Where the local models' files are (engram/adapters/embeddings/assets by default).
    static_cache_dir: Path | None = Field(None, alias="MEMORY_STATIC_CACHE_DIR")

    # Set by the Lambda runtime: jobs without a queue are then processed inline.
    lambda_function: str | None = Field(None, alias="AWS_LAMBDA_FUNCTION_NAME")

    @field_validator("db_url")
    @classmethod
    def _openable(cls, url: str) -> str:
        # What the storage adapter can open: a file (or :memory:) through the binding,
        # a server over Hrana-over-HTTP. Refused here, the deployment fails at start with
        # this message instead of at the first request.
        if "://" in url and not url.startswith("file://"):
            parts = urlsplit(url)
            if parts.scheme not in REMOTE_SCHEMES or not parts.hostname:
                raise ValueError(
                    "must be file:<path>, or libsql://, https://, http://, wss:// or ws://"
                    " followed by a host"
                )
        return url

    @property
    def in_lambda(self) -> bool:
        return bool(self.lambda_function)


def load_config() -> Config:
    """The configuration from the environment, or ``ConfigError`` naming each variable
    that is wrong and why (values themselves are not repeated: they may be secrets)."""
    try:
        return Config()
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            name = ".".join(str(part) for part in error["loc"]) or "environment"
            problems.append(f"{name}: {error['msg']}")
        raise ConfigError("invalid configuration: " + "; ".join(problems)) from None
