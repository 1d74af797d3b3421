"""The ``engram`` command: the engine's commands plus the local server."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from engram import cli as engine_cli

__all__ = ["main"]


def _serve(args: argparse.Namespace) -> int:
    from .local import serve

    serve(args.host, args.port)
    return 0


def _add_serve(sub: engine_cli.Subcommands) -> None:
    serve = sub.add_parser("serve", help="run every HTTP route locally (the local API Gateway)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    serve.set_defaults(func=_serve)


def build_parser() -> argparse.ArgumentParser:
    return engine_cli.build_parser(_add_serve)


def main(argv: Sequence[str] | None = None) -> int:
    return engine_cli.run(build_parser(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
