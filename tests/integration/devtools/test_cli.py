import json
import os
import subprocess
import sys

from engram.adapters.libsql.migrate import load_migrations
from shared.devtools.template import ROOT


def run(args, db_path, stdin="", **environment):
    env = {**os.environ, "ENGRAM_DB_URL": f"file:{db_path}", **environment}
    return subprocess.run(
        [sys.executable, "-m", "shared.devtools.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_extract_prints_facts(db_path):
    out = run(["extract"], db_path, stdin="I prefer TypeScript. The sky is blue.")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [
        {
            "category": "preference",
            "type": "factual",
            "key": "preference:typescript",
            "content": "TypeScript",
        }
    ]


def test_keys_and_migrate_against_a_real_file(db_path):
    created = run(["keys", "create", "laptop"], db_path)
    assert created.returncode == 0, created.stderr
    key = json.loads(created.stdout)
    listed = json.loads(run(["keys", "list"], db_path).stdout)
    assert [k["id"] for k in listed] == [key["id"]]
    assert "secret" not in listed[0]
    versions = [m.version for m in load_migrations()]
    assert json.loads(run(["migrate"], db_path).stdout)["applied"] == versions
    missing = run(["keys", "revoke", "key_nope"], db_path)
    assert missing.returncode == 1 and "no API key" in missing.stderr


def test_a_bad_environment_stops_the_command_with_a_clear_message(db_path):
    out = run(["stats"], db_path, ENGRAM_DB_CACHE_MB="lots", MEMORY_VEC_TOP_K="0")
    assert out.returncode == 2
    assert out.stderr.startswith("engram: invalid configuration:")
    assert "ENGRAM_DB_CACHE_MB" in out.stderr and "MEMORY_VEC_TOP_K" in out.stderr
    assert "Traceback" not in out.stderr


def _commands(parser):
    """Every parser below ``parser`` (commands and their actions), by its prog."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield child
                yield from _commands(child)


def test_every_command_and_option_says_what_it_does():
    from shared.devtools.cli import build_parser

    parser = build_parser()
    text = parser.format_help()
    assert "``" not in text  # reStructuredText quotes from a docstring
    listed = {c.prog.split()[-1] for c in _commands(parser)}
    assert {"serve", "mcp", "invoke", "keys", "create", "revoke"} <= listed
    for command in _commands(parser):
        assert command.description, command.prog
        assert "``" not in command.format_help(), command.prog
        for action in command._actions:
            if action.dest in ("help", "command", "action"):
                continue
            assert action.help, f"{command.prog} {action.option_strings or action.dest}"
    mcp = next(c for c in _commands(parser) if c.prog.endswith(" mcp"))
    assert "ENGRAM_API_KEY" in mcp.format_help()


def test_serve_on_a_busy_port_says_so_before_announcing_anything(tmp_path):
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        out = subprocess.run(
            [sys.executable, "-m", "shared.devtools.cli", "serve", "--port", str(port)],
            cwd=ROOT,
            env=os.environ
            | {"ENGRAM_DATA_DIR": str(tmp_path), "ENGRAM_DB_URL": f"file:{tmp_path / 'e.db'}"},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert out.returncode == 2
    assert f"port {port} on 127.0.0.1 is already in use" in out.stderr
    assert f"--port {port + 1}" in out.stderr
    assert "Engram on http" not in out.stdout and "Errno" not in out.stderr + out.stdout


def test_keys_move_to_another_database_and_their_secrets_work_there(db_path, tmp_path):
    from engram import Config, open_engine

    secret = json.loads(run(["keys", "create", "laptop"], db_path).stdout)["secret"]
    exported = run(["keys", "export"], db_path)
    assert exported.returncode == 0 and secret not in exported.stdout
    dump = tmp_path / "keys.json"
    dump.write_text(exported.stdout)
    other = tmp_path / "other.db"
    restored = json.loads(run(["keys", "import", str(dump)], other).stdout)
    assert len(restored["created"]) == 1 and restored["conflicts"] == []
    engine = open_engine(Config(db_url=f"file:{other}"))
    try:
        assert engine.keys.authenticate(secret) is not None
    finally:
        engine.close()
    dump.write_text('{"keys": [{"id": "*"}]}')
    bad = run(["keys", "import", str(dump)], other)
    assert bad.returncode == 2 and "is not a keys export" in bad.stderr


def test_reindex_embeds_everything_pending_and_shows_progress(db_path):
    from engram import Config, open_engine
    from engram.domain.models import MemoryCreate

    engine = open_engine(Config(db_url=f"file:{db_path}"), jobs="manual")  # nothing embedded
    try:
        for i in range(300):
            engine.memories.create(MemoryCreate(api_key_id="k", content=f"note {i} about kotlin"))
    finally:
        engine.close()
    out = run(["reindex", "--force"], db_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"processed": 300, "pending": 0}
    lines = [line for line in out.stderr.splitlines() if line.startswith("reindex: ")]
    assert lines and lines[-1] == "reindex: 300/300 embedded"
