"""The composition root: the one place that builds adapters and plugs them into the
engine's use cases.

``open_engine`` makes a new engine (tests, CLI); ``build_engine`` caches one per
database URL for the life of the process, which is what a Lambda container or
the local server wants: the connection and the migrations check happen once.

Queues follow one rule: a queue URL means SQS; without one, the local stack
processes jobs in a worker thread, and a Lambda function processes them inline
(a thread would freeze with the instance between invocations).
"""

from engram.wiring.root import (
    JobMode,
    build_engine,
    migrate,
    open_database,
    open_engine,
    open_keys,
    reset_engines,
)

__all__ = [
    "JobMode",
    "build_engine",
    "migrate",
    "open_database",
    "open_engine",
    "open_keys",
    "reset_engines",
]
