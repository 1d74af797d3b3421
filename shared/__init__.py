"""Lambda glue every function shares (HTTP app factory, error mapping, observability).

Filled in by the HTTP-surfaces issue; the engine itself lives in ``layers/engram/engram``.
"""
