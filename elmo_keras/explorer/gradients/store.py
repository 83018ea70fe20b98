"""The Gradients page's default measurements kept on disk (``result_cache``), so that a later visit (a new server
process, the first visit after the first-use training) shows the page without running a model.

The measurements depend on the gradients directory's files (the trained models and their settings) and the page's
inputs (length, rnn_scale, forget_bias); ``measurements_path`` is their place under
``<models dir>/.results/gradients/``. They are mostly float32 arrays (about 5 MB), so they are kept as an ``.npz``
read without pickle (``result_cache.keep_arrays``; JSON would be 27 MB): ``length``, ``run|<model>|<stage>|<field>``
and ``decay|<shrink>|<field>``, the fields ``loss``, ``hidden`` and, for the LSTM, ``cell`` and ``forget``.
``cached_measurements`` reads them or measures and keeps them; a damaged or foreign file is measured again
and replaced, a directory that takes no file only costs a measurement per process. Only the page's defaults are
kept, and only the latest models' (``keep_measurements`` deletes the kind's other results).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
from collections.abc import Callable

import numpy as np

from elmo_keras.analysis.gradient_study.flow import StateGradients
from elmo_keras.analysis.gradient_study.results import Measurements
from elmo_keras.explorer.result_cache import keep_arrays, result_path, stored_arrays

RESULT_KIND = "gradients"
# the file earlier versions wrote into the gradients directory (the page's defaults as ``.npz``); it is no longer
# read or written, but a directory that still holds it is the page's own (``service.OWN_ENTRIES``)
LEGACY_MEASUREMENTS_FILE = "measurements.npz"
ARRAYS = ("hidden", "cell", "forget")
SEPARATOR = "|"


def _gradient_arrays(prefix: str, measured: StateGradients) -> dict:
    arrays = {f"{prefix}{SEPARATOR}loss": np.asarray(measured.loss)}
    arrays.update({f"{prefix}{SEPARATOR}{field}": getattr(measured, field) for field in ARRAYS
                   if getattr(measured, field) is not None})
    return arrays


def measurements_arrays(measurements: Measurements) -> dict[str, np.ndarray]:
    """Flat ``{key: array}`` for an ``.npz``: ``run|<model>|<stage>|<field>``, ``decay|<shrink>|<field>``,
    ``length`` (``measurements_from_arrays`` reads them back)."""
    arrays = {"length": np.asarray(measurements.length)}
    for (label, stage), measured in measurements.runs.items():
        arrays.update(_gradient_arrays(SEPARATOR.join(("run", label, stage)), measured))
    for shrink, measured in measurements.decay.items():
        arrays.update(_gradient_arrays(SEPARATOR.join(("decay", repr(float(shrink)))), measured))
    return arrays


def measurements_from_arrays(arrays) -> Measurements:
    """The inverse of ``measurements_arrays``. Raises ``KeyError``/``ValueError`` on arrays it did not write."""
    groups: dict[tuple, dict] = {}
    for key in arrays:
        if key != "length":
            *prefix, field = key.split(SEPARATOR)
            groups.setdefault(tuple(prefix), {})[field] = np.asarray(arrays[key])
    runs, decay = {}, {}
    for prefix, values in groups.items():
        measured = StateGradients(float(values["loss"]), values["hidden"], values.get("cell"), values.get("forget"))
        if prefix[0] == "run" and len(prefix) == 3:
            runs[(prefix[1], prefix[2])] = measured
        elif prefix[0] == "decay" and len(prefix) == 2:
            decay[float(prefix[1])] = measured
        else:
            raise ValueError(f"unexpected measurement key {SEPARATOR.join(prefix)!r}")
    return Measurements(runs, dict(sorted(decay.items(), reverse=True)), int(arrays["length"]))


def measurements_path(models_dir: str | os.PathLike, model_dir: str | os.PathLike, length: int, rnn_scale: float,
                      forget_bias: float) -> pathlib.Path:
    """Where the measurements of the models in ``model_dir`` (the gradients directory) for these settings are kept."""
    inputs = {"length": int(length), "rnn_scale": float(rnn_scale), "forget_bias": float(forget_bias)}
    return result_path(models_dir, RESULT_KIND, model_dir, inputs, suffix=".npz")


def keep_measurements(path: pathlib.Path, measurements: Measurements) -> None:
    """Write ``measurements`` at ``path`` (in one rename: ``result_cache.keep_arrays``) and delete the kind's
    other results: those of models trained before (the page keeps one set, its defaults', of about 5 MB). Where
    nothing can be written, the next process measures again."""
    if not keep_arrays(path, measurements_arrays(measurements)):
        return
    for other in path.parent.glob("*.npz"):
        if other != path:
            with contextlib.suppress(OSError):
                other.unlink()


def cached_measurements(path: pathlib.Path, measure: Callable[[], Measurements]) -> Measurements:
    """The measurements kept at ``path``, or ``measure()``'s, kept there for next time (a missing, damaged or
    foreign file is replaced)."""
    stored = stored_arrays(path)
    if stored is not None:
        with contextlib.suppress(KeyError, ValueError):  # a file of another shape: measured again and replaced
            return measurements_from_arrays(stored)
    measured = measure()
    keep_measurements(path, measured)
    return measured
