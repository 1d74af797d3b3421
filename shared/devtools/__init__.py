"""Developer tooling: the ``engram`` command, the local server and its schedules,
``engram invoke`` and the template reader. Not part of the Lambda layer."""
