"""One BLAS thread per process, unless the deployment says otherwise.

Retrieval's one matrix product per query (the owner's vectors times the query's, a few
MB) is bound by memory, not arithmetic: OpenBLAS splitting it across threads made it
4-10x slower on a busy two-core machine (0.2-1 ms -> 4-7 ms at 10,000 vectors), with
identical results (each score is still one row's dot product). OpenBLAS reads this once,
when numpy loads it, so it is set on importing the engine; a value already set wins.
"""

from __future__ import annotations

import os

__all__: list[str] = []

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
