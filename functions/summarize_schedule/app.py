"""Daily: fold old memories into summaries, only when the autoSummarize setting is on."""

from engram import build_engine, load_config
from shared.schedules import scheduled_handler

config = load_config()
handler = scheduled_handler("Summarize", lambda: build_engine(config).maintenance.auto_summarize())
