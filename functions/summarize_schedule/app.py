"""Daily: fold old memories into summaries, only when the autoSummarize setting is on."""

from engram import build_engine
from shared.schedules import scheduled_handler
from shared.secrets import load_runtime_config

config = load_runtime_config()  # secrets read at run time, never from the environment
handler = scheduled_handler("Summarize", lambda: build_engine(config).maintenance.auto_summarize())
