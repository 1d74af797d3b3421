"""Lambda glue every function shares: the HTTP app factory and its routers, the one
mapping from engine errors to HTTP statuses, observability, and the local stack.

The engine (``engram``) knows nothing of this package; this package adapts it.
"""
