"""Hourly: remove expired memories, memories past retention and old bookkeeping."""

from engram import build_engine, load_config
from shared.schedules import scheduled_handler

config = load_config()
handler = scheduled_handler("Cleanup", lambda: build_engine(config).maintenance.cleanup())
