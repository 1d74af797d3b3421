"""Whose memories a read may see: the value every storage query is conditioned on."""

from __future__ import annotations

from dataclasses import dataclass

from engram.domain.errors import InvalidInputError
from engram.domain.models.common import GLOBAL_OWNER, Scope

__all__ = ["OwnerFilter", "owner_filter"]


@dataclass(frozen=True)
class OwnerFilter:
    """One or more owners (API key ids), optionally narrowed to one session.

    A value, not SQL: each store renders it into its own query language, so the
    owner is a condition inside the query, never a filter applied afterwards.
    """

    owners: tuple[str, ...]
    session_id: str | None = None


def owner_filter(api_key_id: str, scope: Scope, session_id: str | None) -> OwnerFilter:
    """The filter of a retrieval by ``api_key_id`` with ``scope``."""
    if scope is Scope.SESSION:
        if session_id is None:
            raise InvalidInputError("sessionId is required for scope 'session'", field="sessionId")
        return OwnerFilter((api_key_id,), session_id)
    if scope is Scope.GLOBAL and api_key_id != GLOBAL_OWNER:
        return OwnerFilter((api_key_id, GLOBAL_OWNER))
    return OwnerFilter((api_key_id,))
