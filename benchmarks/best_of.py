"""The best of repeated timings, for the benchmarks that time a few runs against a baseline."""

from __future__ import annotations

import time
from typing import Callable


def best_seconds(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Each run's fastest of ``repeat`` timings, in seconds, by name (the first run of all also
    warms Spark and its Python workers: only the best counts)."""
    timings = {}
    for name, run in runs.items():
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        timings[name] = best
    return timings
