"""Daily: fold old memories into summaries, only when the autoSummarize setting is on."""

from engram import Config, build_engine
from shared.schedules import scheduled_handler

config = Config()
handler = scheduled_handler("Summarize", lambda: build_engine(config).maintenance.auto_summarize())
