"""Timing shared by the benchmarks (plain Python: the PyTorch reference imports it without elmo_keras)."""

from __future__ import annotations

import time


def fastest_seconds(fn, repeats):
    """Fastest wall time of ``fn()`` over ``repeats`` calls, after two untimed calls (compilation, warm-up).

    The fastest, not the median: on a shared 2-core machine other work only ever adds time, and it comes in
    bursts of seconds that moved medians by ±25% between runs here, while the fastest call moved far less.
    """
    return fastest_interleaved_seconds({"fn": fn}, repeats, settle_seconds=0.0)["fn"]


def fastest_interleaved_seconds(functions: dict, repeats: int, settle_seconds: float = 0.05) -> dict:
    """``fastest_seconds`` of several functions called in turn (one call of each per round, ``repeats`` rounds, after
    two untimed rounds): a drift of the machine within the run (1.5× within minutes here) reaches them all alike,
    where timing one after the other would give it to one side. Each call waits ``settle_seconds`` first, so that the
    threads the previous call left spinning are asleep (PyTorch's OpenMP threads spin after a call: without the pause
    our next call took 16.0 against 14.0 ms with it, at ELMo-small one sentence, 2 cores). Returns
    ``{name: seconds}``."""
    for _ in range(2):
        for fn in functions.values():
            fn()
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(repeats):
        for name, fn in functions.items():
            if settle_seconds:
                time.sleep(settle_seconds)
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def cpu_name(path: str = "/proc/cpuinfo") -> str:
    """The CPU's ``model name`` from ``/proc/cpuinfo`` and the number of logical CPUs (``"unknown CPU"`` elsewhere):
    every benchmark names the machine its seconds come from."""
    try:
        with open(path, encoding="utf-8", errors="replace") as cpuinfo:
            names = [line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")]
    except OSError:
        names = []
    return f"{names[0]} ({len(names)} logical CPUs)" if names else "unknown CPU"
