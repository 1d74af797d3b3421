"""The local stack: every router in one process, embedded storage, no credentials,
the extraction and embedding queues drained by a thread, the schedules on a timer.

Without ``ENGRAM_ADMIN_TOKEN`` a token is created once, kept in the data directory
(readable by the owner only) and printed when created.
"""

from __future__ import annotations

import errno
import os
import secrets
import socket
from pathlib import Path

from pydantic import SecretStr

from engram import Config, load_config
from engram.domain.errors import ConfigError

__all__ = ["check_port", "ensure_admin_token", "serve"]

TOKEN_FILE = "admin-token"  # noqa: S105 - a file name, not a secret


def ensure_admin_token(config: Config) -> tuple[Config, Path | None, bool]:
    """(config with an admin token, the file holding it or None, whether it was created)."""
    if config.admin_token is not None:
        return config, None, False
    path = config.data_dir / TOKEN_FILE
    created = False
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        token = secrets.token_urlsafe(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(token + "\n")
        created = True
    token = path.read_text().strip()
    return config.model_copy(update={"admin_token": SecretStr(token)}), path, created


def check_port(host: str, port: int) -> None:
    """``ConfigError`` naming the way out when ``host:port`` cannot be listened on, before
    anything is announced (uvicorn would print the address, then ``[Errno 98]``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"port {port} on {host} is already in use (another engram serve?): stop "
                    f"it, or choose another port: engram serve --port {port + 1} "
                    f"(make serve PORT={port + 1})"
                ) from None
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def serve(host: str = "127.0.0.1", port: int = 8080) -> None:
    import uvicorn

    from engram import build_engine, reset_engines

    from ..http import create_app
    from .local_schedules import LocalSchedules

    check_port(host, port)
    config, path, created = ensure_admin_token(load_config())
    if created:
        assert config.admin_token is not None
        print(f"Created an admin token: {config.admin_token.get_secret_value()}")
        print(f"  (stored in {path}; send it as 'Authorization: Bearer <token>')")
    elif path is not None:
        print(f"Admin token: in {path}")
    print(f"Engram on http://{host}:{port}  (database {config.db_url}, API docs at /docs)")
    print(f"Memory Studio: http://{host}:{port}/studio  (sign in with the admin token)")
    # The schedules of template.yaml (reindex, cleanup, summarize), on a timer.
    LocalSchedules(lambda: build_engine(config)).start()
    try:
        uvicorn.run(create_app(config=config), host=host, port=port, log_level="warning")
    finally:
        reset_engines()  # the extraction process and the job worker end with the server
