"""One Logger and one Metrics for every function (powertools: JSON logs, EMF metrics).

The engine logs through the standard library (``engram.*`` loggers); their records
are routed through the powertools logger so they carry the same JSON shape and
correlation id. Nothing here logs request bodies or memory contents.
"""

from __future__ import annotations

import io
import sys
from typing import IO, cast

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers

__all__ = ["logger", "metrics"]


class _Stdout(io.TextIOBase):
    """Whatever ``sys.stdout`` is when a record is written, not when the logger was built:
    a process that swaps stdout (a test runner, a wrapper) still gets every log line."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


logger = Logger(service="engram", stream=cast(IO[str], _Stdout()))
metrics = Metrics(namespace="Engram", service="engram")

copy_config_to_registered_loggers(source_logger=logger, include={"engram"})
