"""Hourly: remove expired memories, memories past retention and old bookkeeping."""

from engram import Config, build_engine
from shared.schedules import scheduled_handler

config = Config()
handler = scheduled_handler("Cleanup", lambda: build_engine(config).maintenance.cleanup())
