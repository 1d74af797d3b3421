"""The ``engram`` command: the engine's commands plus the local server."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from engram import cli as engine_cli

__all__ = ["main"]


def _serve(args: argparse.Namespace) -> int:
    from .local import serve

    serve(args.host, args.port)
    return 0


def _invoke(args: argparse.Namespace) -> int:
    from .lambda_local import invoke

    return invoke(args.logical_id, args.event, args.env_vars)


def _build_layer(args: argparse.Namespace) -> int:
    from .lambda_local import build_layer

    for path in build_layer():
        print(f"wrote {path}")
    return 0


def _add_serve(sub: engine_cli.Subcommands) -> None:
    serve = sub.add_parser("serve", help="run every HTTP route locally (the local API Gateway)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    serve.set_defaults(func=_serve)
    invoke = sub.add_parser("invoke", help="run one function of template.yaml with an event")
    invoke.add_argument("logical_id", help="the function's logical id, e.g. MemoryApiFunction")
    invoke.add_argument("--event", type=Path, required=True, help="an event file (events/)")
    invoke.add_argument("--env-vars", type=Path, help="env.json, as sam local invoke reads it")
    invoke.set_defaults(func=_invoke)
    layer = sub.add_parser("build-layer", help="prepare layers/ for sam build")
    layer.set_defaults(func=_build_layer)


def build_parser() -> argparse.ArgumentParser:
    return engine_cli.build_parser(_add_serve)


def main(argv: Sequence[str] | None = None) -> int:
    return engine_cli.run(build_parser(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
