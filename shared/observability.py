"""One Logger, one Metrics and one Tracer for every function (powertools: JSON logs, EMF
metrics, X-Ray subsegments for each handler and the AWS and HTTP calls it makes).

The engine logs through the standard library (``engram.*`` loggers); their records
are routed through the powertools logger so they carry the same JSON shape and
correlation id. Nothing here logs request bodies or memory contents.

The tracer is off outside Lambda, and wherever ``POWERTOOLS_TRACE_DISABLED`` is true (the
tests, ``engram invoke``): there is no X-Ray daemon to send to. Handler responses are not
recorded as trace metadata (``capture_response=False``): they hold memories.
"""

from __future__ import annotations

import io
import sys
from typing import IO, cast

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers

__all__ = ["logger", "metrics", "tracer"]


class _Stdout(io.TextIOBase):
    """Whatever ``sys.stdout`` is when a record is written, not when the logger was built:
    a process that swaps stdout (a test runner, a wrapper) still gets every log line."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


logger = Logger(service="engram", stream=cast(IO[str], _Stdout()))
metrics = Metrics(namespace="Engram", service="engram")
tracer = Tracer(service="engram")

copy_config_to_registered_loggers(source_logger=logger, include={"engram"})
