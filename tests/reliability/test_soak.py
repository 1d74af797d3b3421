"""A bounded soak in CI: several client processes of mixed traffic against a real server
(``bench/soak.py``'s ``soak()``). No request may fail, nothing may be logged as an error,
the data stays bounded, and the server's memory may not keep growing."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections import Counter

import pytest

from tests.support.lambda_support import ROOT

SECONDS = int(os.environ.get("ENGRAM_SOAK_SECONDS", "120"))
MAX_GROWTH_MB = 60.0


def _bench_soak():
    spec = importlib.util.spec_from_file_location("bench_soak", ROOT / "bench" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_a_soak_has_no_errors_and_no_memory_growth():
    bench = _bench_soak()
    run = bench.soak(SECONDS, clients=4, progress=False)
    summary = bench.report(run)
    operations = Counter(op for _, op, _, _ in run.records)
    assert operations["chat"] > 50 and operations["forget"] > 0, operations  # it ran
    failures = Counter(run.failures())
    assert not failures, f"failed requests (operation, status): {failures.most_common(5)}"
    assert run.error_log_lines == 0, summary
    assert run.growth_mb() <= MAX_GROWTH_MB, summary
