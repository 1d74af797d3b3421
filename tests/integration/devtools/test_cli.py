import json
import os
import subprocess
import sys

from engram.adapters.libsql.migrate import load_migrations


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
