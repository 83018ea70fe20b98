"""Timing shared by the benchmarks (plain Python: the PyTorch reference imports it without elmo_keras)."""

from __future__ import annotations

import statistics
import time


def median_seconds(fn, repeats):
    """Median wall time of ``fn()`` over ``repeats`` calls, after two untimed calls (compilation, warm-up)."""
    fn()
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
