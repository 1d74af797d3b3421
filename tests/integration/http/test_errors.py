"""The one mapping from engine errors to HTTP statuses (shared/http/errors.py)."""

import pytest

from engram.domain import errors
from shared.http.errors import status_for

EXPECTED = {
    errors.ConflictError: (409, "conflict_error"),
    errors.InvalidInputError: (422, "invalid_request_error"),
    errors.NotFoundError: (404, "not_found_error"),
    errors.AuthenticationError: (401, "authentication_error"),
    errors.StorageError: (503, "storage_unavailable"),
    errors.MigrationError: (503, "storage_unavailable"),
    errors.UnavailableError: (503, "service_unavailable"),
    errors.EmbeddingError: (503, "service_unavailable"),
    errors.TransientEmbeddingError: (503, "service_unavailable"),
    # Retrieval goes on without such a store; the endpoints that ask it directly answer
    # 409 (a conflict to resolve) by raising ConflictError themselves.
    errors.DimensionMismatch: (503, "service_unavailable"),
    errors.BackendError: (503, "service_unavailable"),  # a remote memory backend failed
    # The LLM extractor's model answered nonsense: learning goes on without it, off the
    # response path; anything that asked it directly would be told the service failed.
    errors.ModelOutputError: (503, "service_unavailable"),
    errors.UpstreamError: (502, "upstream_error"),
    errors.UpstreamTimeout: (504, "upstream_timeout"),
    errors.ConfigError: (500, "internal_error"),  # a deployment fault, not the caller's
    errors.EngramError: (500, "internal_error"),
}


@pytest.mark.parametrize("cls", list(EXPECTED), ids=lambda c: c.__name__)
def test_each_error_has_its_status(cls):
    assert status_for(cls("x")) == EXPECTED[cls]


def test_every_error_class_is_mapped_here():
    """A new error class must be given its status on purpose (and a line above)."""
    exported = (getattr(errors, name) for name in errors.__all__)
    classes = {value for value in exported if isinstance(value, type)}
    assert classes == set(EXPECTED)
