"""Engram's one error hierarchy.

Every failure the engine reports is an ``EngramError``; adapters wrap the
exceptions of the libraries they call (``raise StorageError(...) from exc``) so
callers never depend on a driver's exception types. The HTTP edge maps these
classes to status codes in exactly one place; nobody matches on messages.

    EngramError
    ├── ConfigError            the deployment's environment is wrong (start-up fails)
    ├── InvalidInputError      bad input from a caller (HTTP 4xx)
    │   └── ConflictError      the input collides with stored state (409)
    ├── NotFoundError          a named thing does not exist (404)
    ├── AuthenticationError    missing or wrong credentials (401)
    ├── StorageError           the database failed or is unreachable
    │   └── MigrationError     the schema could not be brought up to date
    ├── UnavailableError       an optional dependency (FTS, vectors, a queue) is not usable
    │   ├── BackendError       a remote memory backend failed (unreachable, slow, 4xx/5xx)
    │   └── EmbeddingError     an embedder failed
    │       └── TransientEmbeddingError   rate limit, timeout, dropped request: retry once
    └── UpstreamError          the chat provider refused or broke the connection (502)
        └── UpstreamTimeout    the chat provider did not answer in time (504)
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AuthenticationError",
    "BackendError",
    "ConfigError",
    "ConflictError",
    "DimensionMismatch",
    "EmbeddingError",
    "EngramError",
    "InvalidInputError",
    "MigrationError",
    "ModelOutputError",
    "NotFoundError",
    "StorageError",
    "TransientEmbeddingError",
    "UnavailableError",
    "UpstreamError",
    "UpstreamTimeout",
    "log_safe",
]


class EngramError(Exception):
    """Base of every error the engine raises on purpose."""

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        details: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        # The input field the error is about, when there is one, so the edge can name it.
        self.field = field
        # Per-item problems of a batch (an import), reported all at once.
        self.details = details


class ConfigError(EngramError):
    """The deployment's configuration (environment variables) is invalid."""


class InvalidInputError(EngramError):
    """The caller sent something the engine refuses."""


class ConflictError(InvalidInputError):
    """The input is valid on its own but collides with what is stored."""


class NotFoundError(EngramError):
    """The requested memory, key or resource does not exist (for this owner)."""


class AuthenticationError(EngramError):
    """Credentials are missing, unknown or revoked."""


class StorageError(EngramError):
    """The database rejected a statement or could not be reached."""


class MigrationError(StorageError):
    """A schema migration failed or a recorded migration no longer matches its file."""


class UnavailableError(EngramError):
    """A tier or dependency is not available; callers degrade instead of failing."""


class DimensionMismatch(UnavailableError):
    """A vector store holds vectors of another dimension than the active embedder's:
    retrieval goes on without it; asked for directly, it is a conflict to resolve."""


class BackendError(UnavailableError):
    """A remote memory backend could not be reached or gave an answer Engram cannot use."""


class UpstreamError(EngramError):
    """The upstream chat provider could not be reached or broke the exchange."""


class UpstreamTimeout(UpstreamError):
    """The upstream chat provider did not answer within the configured timeout."""


class EmbeddingError(UnavailableError):
    """An embedder could not produce vectors (missing key, model not installed...)."""


class TransientEmbeddingError(EmbeddingError):
    """A failure worth one retry: rate limited, timed out, or the request was dropped."""


class ModelOutputError(UnavailableError):
    """A language model answered, but not what was asked (not JSON, not the schema)."""


def log_safe(exc: BaseException) -> str:
    """What a log may say about ``exc``: the class, where it was raised and, for Engram's
    own errors, the message. Other messages can quote their input (pydantic's
    ``input_value``: memory text, keys), so they are never logged."""
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    where = ""
    if frame is not None:
        code = frame.tb_frame.f_code
        where = f" at {code.co_filename.rsplit('/', 1)[-1]}:{frame.tb_lineno} ({code.co_name})"
    message = f": {exc.message}" if isinstance(exc, EngramError) else ""
    return f"{type(exc).__name__}{where}{message}"
