"""The HTTP API's authorizer: the admin token or an active API key, or no entry
(shared/authorizer.py says why it is a first gate, not the authority)."""

from shared.authorizer import authorizer_handler

handler = authorizer_handler()
