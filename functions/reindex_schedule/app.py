"""Every few minutes: embed memories still waiting for a vector (after a model change)."""

from engram import build_engine
from shared.schedules import scheduled_handler
from shared.secrets import load_runtime_config

config = load_runtime_config()  # secrets read at run time, never from the environment
# Leave a margin under the function's 60 s timeout for start-up and the response.
handler = scheduled_handler("Reindex", lambda: build_engine(config).vectors.reindex(max_seconds=45))
