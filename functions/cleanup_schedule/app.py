"""Hourly: remove expired memories, memories past retention and old bookkeeping."""

from engram import build_engine
from shared.schedules import scheduled_handler
from shared.secrets import load_runtime_config

config = load_runtime_config()  # secrets read at run time, never from the environment
handler = scheduled_handler("Cleanup", lambda: build_engine(config).maintenance.cleanup())
