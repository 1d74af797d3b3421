"""The engine asks OpenBLAS for one thread (see ``engram._blas``) unless told otherwise."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = "import engram, numpy, os; print(os.environ['OPENBLAS_NUM_THREADS'])"


def _threads(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_one_blas_thread_is_set_before_numpy_loads():
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _threads(env) == "1"


def test_a_deployment_setting_wins():
    assert _threads({**os.environ, "OPENBLAS_NUM_THREADS": "3"}) == "3"
