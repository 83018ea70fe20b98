"""The names of the embedder's execution and precision choices, and their checks: no Keras, so that the command
line (``cli.embed``, ``python -m elmo_keras --help``) lists them without importing an engine.

What each choice runs: ``execution`` in docs/speed.md ("Execution paths") and ``embedding.inference``;
``precision`` in ``embedding.precision``.
"""

from __future__ import annotations

AUTO = "auto"
EXECUTION_MODES = ("graph", "xla", "eager")  # what a batch runs as; "auto" is "graph" (XLA is an explicit opt-in)
EXECUTION_CHOICES = (AUTO, *EXECUTION_MODES)  # what ``ElmoEmbedder(execution=)`` and ``layer_embeddings`` take
PRECISION_CHOICES = (AUTO, "float32", "bfloat16")  # what ``ElmoEmbedder(precision=)`` and ``layer_embeddings`` take
DEFAULT_TIME_BUCKET = 16  # paths compiled per shape: the time axis is padded to a multiple of this many steps
DEFAULT_RAY_WORKERS = 2  # embedding on Ray Data (embedding.ray_engine, embed --engine ray): workers, one embedder each


def check_execution(execution: str) -> str:
    """``execution`` checked to be one of ``EXECUTION_CHOICES`` (a ValueError naming the value otherwise)."""
    if execution not in EXECUTION_CHOICES:
        raise ValueError(f"execution must be one of {EXECUTION_CHOICES}, received {execution!r}")
    return execution


def check_precision(precision: str) -> str:
    """``precision`` checked to be one of ``PRECISION_CHOICES`` (a ValueError naming the value and the choices
    otherwise)."""
    if precision not in PRECISION_CHOICES:
        raise ValueError(f"precision must be one of {PRECISION_CHOICES}, received {precision!r}")
    return precision
