"""``training_precision="auto"``: float32, or mixed_bfloat16 only where a measurement on this machine shows it faster.

A CPU flag cannot decide it: oneDNN's bfloat16 matmuls use AVX512-BF16 where the CPU has it, but a whole training
step also pays for casts and for many small matmuls, and on some CPUs with the flag it is slower than float32.
So "auto" times the training work itself — forward, loss and gradients of a ``BiLanguageModel`` of the config's
sizes, in both precisions, interleaved — and picks mixed_bfloat16 only when it is at least ``MIN_SPEEDUP`` times
faster. The flag is used only to rule bfloat16 out (without it bfloat16 is emulated: slower for certain).

The measurement (a few seconds) is cached per machine, software versions and model sizes in
``<cache>/training_precision.json`` — ``$ELMO_KERAS_CACHE``, else ``$XDG_CACHE_HOME/elmo_keras``, else
``~/.cache/elmo_keras`` — so it runs once, and the same machine keeps choosing the same precision (``train_bilm``
stays deterministic for a seed). An unreadable cache is measured again; an unwritable one is not kept.
"""

from __future__ import annotations

import os
import pathlib
import platform

import numpy as np

from elmo_keras._backend import engine_version, has_native_bfloat16, time_training_steps
from elmo_keras._quiet import keras
from elmo_keras.models.bilm.language_model import build_bilm_lm
from elmo_keras.models.bilm.presets import BiLMConfig
from elmo_keras.safe_files import read_json_object, user_cache_directory, write_json_object

MIN_SPEEDUP = 1.1  # bfloat16 must beat float32 by this factor: a tie is not worth the rounding
CACHE_FILE = "training_precision.json"
PRECISIONS_MEASURED = ("float32", "mixed_bfloat16")
PROBE_VOCABULARY, PROBE_BATCH, PROBE_STEPS, PROBE_ROUNDS = 64, 32, 16, 3


def cache_directory() -> pathlib.Path:
    """Where elmo_keras keeps per-machine measurements (see the module docstring)."""
    if os.environ.get("ELMO_KERAS_CACHE"):
        return pathlib.Path(os.environ["ELMO_KERAS_CACHE"])
    return user_cache_directory()


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_key(config: BiLMConfig) -> str:
    """What the measurement depends on: the CPU, its core count, the software and the model's sizes."""
    sizes = (config.token_input, config.embedding_dim, config.units, config.projection_dim, config.num_layers)
    return (f"{_cpu_name()} | {os.cpu_count()} cpus | {engine_version()} | keras {keras.__version__} | "
            f"sizes {sizes}")


def measure_precisions(config: BiLMConfig, rounds: int = PROBE_ROUNDS) -> dict[str, float]:
    """Seconds per training computation (forward, loss, gradients) in ``float32`` and ``mixed_bfloat16``.

    The model has the config's sizes over a small vocabulary; the two precisions are timed in alternation,
    ``rounds`` times each, and the fastest time of each is kept. Building the models draws from Keras's global
    random state: ``train_bilm`` measures before it seeds.

    Returns:
        ``{"float32": seconds, "mixed_bfloat16": seconds}``.
    """
    rng = np.random.default_rng(0)
    ids = rng.integers(4, PROBE_VOCABULARY, size=(PROBE_BATCH, PROBE_STEPS)).astype("int32")
    if config.token_input == "char":
        ids = rng.integers(1, 261, size=(PROBE_BATCH, PROBE_STEPS, 50)).astype("int32")
    targets = rng.integers(4, PROBE_VOCABULARY, size=(PROBE_BATCH, PROBE_STEPS)).astype("int32")

    def build(precision):
        model = build_bilm_lm(config, PROBE_VOCABULARY, dtype=precision)
        model.build(model.bilm.input_ids_shape)
        return model

    return time_training_steps(build, PRECISIONS_MEASURED, ids, targets, rounds)


def resolve_training_precision(config: BiLMConfig) -> tuple[str, dict | None]:
    """The precision ``train_bilm`` computes in for ``config``, and the measurement behind an ``"auto"`` choice.

    Returns:
        ``(precision, measurement)``: ``"float32"`` or ``"mixed_bfloat16"``, and for ``"auto"`` on a CPU with
        native bfloat16 ``{"float32": s, "mixed_bfloat16": s}`` (seconds per step, measured now or cached);
        otherwise None.
    """
    if config.training_precision != "auto":
        return config.training_precision, None
    if not has_native_bfloat16():  # emulated bfloat16 (or another backend): float32 is faster for certain
        return "float32", None
    path = cache_directory() / CACHE_FILE
    key = machine_key(config)
    measurement = (read_json_object(path) or {}).get(key)
    valid = isinstance(measurement, dict) and all(
        isinstance(measurement.get(p), (int, float)) and measurement[p] > 0 for p in PRECISIONS_MEASURED)
    if not valid:
        measurement = measure_precisions(config)
        write_json_object(path, {**(read_json_object(path) or {}), key: measurement})
    faster = measurement["float32"] / measurement["mixed_bfloat16"] >= MIN_SPEEDUP
    return ("mixed_bfloat16" if faster else "float32"), {p: float(measurement[p]) for p in PRECISIONS_MEASURED}
