"""The ``engram`` command line.

Engine-level commands only; commands that need the HTTP stack (``serve``) are
added by the project's ``shared`` package when it is installed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from .config import Config
from .errors import EngramError
from .extraction import extract_facts
from .models import ApiKeyCreate
from .wiring import open_engine

__all__ = ["main"]


def _print(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _cmd_migrate(args: argparse.Namespace) -> int:
    engine = open_engine(Config())
    versions = [r["version"] for r in engine.db.query("SELECT version FROM schema_migrations")]
    _print({"database": engine.config.db_url, "applied": versions})
    return 0


def _cmd_extract(args: argparse.Namespace) -> int:
    text = sys.stdin.read()
    _print(
        [
            {"category": f.category, "type": f.type.value, "key": f.key, "content": f.content}
            for f in extract_facts(text)
        ]
    )
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    engine = open_engine(Config())
    _print(engine.memories.stats(args.api_key_id).model_dump(mode="json"))
    return 0


def _cmd_keys(args: argparse.Namespace) -> int:
    engine = open_engine(Config())
    if args.action == "create":
        _print(engine.keys.create(ApiKeyCreate(name=args.name)).model_dump(mode="json"))
    elif args.action == "list":
        _print([k.model_dump(mode="json") for k in engine.keys.all()])
    else:
        key = engine.keys.revoke(args.id)
        if key is None:
            print(f"no API key with id {args.id}", file=sys.stderr)
            return 1
        _print(key.model_dump(mode="json"))
    return 0


Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def build_parser(
    extend: Callable[[Subcommands], None] | None = None,
) -> argparse.ArgumentParser:
    """The parser; ``extend`` adds subcommands (the HTTP stack adds ``serve``)."""
    parser = argparse.ArgumentParser(prog="engram", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="apply database migrations").set_defaults(func=_cmd_migrate)
    sub.add_parser("extract", help="print the facts extracted from stdin").set_defaults(
        func=_cmd_extract
    )
    stats = sub.add_parser("stats", help="memory totals and hit rate")
    stats.add_argument("--api-key-id")
    stats.set_defaults(func=_cmd_stats)
    keys = sub.add_parser("keys", help="API keys of the chat proxy")
    actions = keys.add_subparsers(dest="action", required=True)
    actions.add_parser("create").add_argument("name", nargs="?", default="default")
    actions.add_parser("list")
    actions.add_parser("revoke").add_argument("id")
    keys.set_defaults(func=_cmd_keys)
    if extend is not None:
        extend(sub)
    return parser


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> int:
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except EngramError as exc:
        print(f"engram: {exc.message}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
