"""One Logger and one Metrics for every function (powertools: JSON logs, EMF metrics).

The engine logs through the standard library (``engram.*`` loggers); their records
are routed through the powertools logger so they carry the same JSON shape and
correlation id. Nothing here logs request bodies or memory contents.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers

__all__ = ["logger", "metrics"]

logger = Logger(service="engram")
metrics = Metrics(namespace="Engram", service="engram")

copy_config_to_registered_loggers(source_logger=logger, include={"engram"})
