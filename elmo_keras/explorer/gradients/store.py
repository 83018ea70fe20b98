"""The Gradients page's default measurements on disk (``measurements.npz`` beside the models), so that a later visit
shows the page without running a model: ``measurements_arrays`` / ``measurements_from_arrays`` convert a
``Measurements`` to flat NumPy arrays and back; ``read_measurements`` returns None for a missing or damaged file
(the page then measures again).
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

from elmo_keras.analysis.gradient_study.flow import StateGradients
from elmo_keras.analysis.gradient_study.results import Measurements

MEASUREMENTS_FILE = "measurements.npz"
FIELDS = ("hidden", "cell", "forget")
SEPARATOR = "|"


def _gradient_arrays(prefix: str, measured: StateGradients) -> dict:
    arrays = {f"{prefix}{SEPARATOR}loss": np.asarray(measured.loss)}
    arrays.update({f"{prefix}{SEPARATOR}{field}": getattr(measured, field) for field in FIELDS
                   if getattr(measured, field) is not None})
    return arrays


def measurements_arrays(measurements: Measurements) -> dict[str, np.ndarray]:
    """Flat ``{key: array}`` for ``np.savez``: ``run|<model>|<stage>|<field>``, ``decay|<shrink>|<field>``,
    ``length``."""
    arrays = {"length": np.asarray(measurements.length)}
    for (label, stage), measured in measurements.runs.items():
        arrays.update(_gradient_arrays(SEPARATOR.join(("run", label, stage)), measured))
    for shrink, measured in measurements.decay.items():
        arrays.update(_gradient_arrays(SEPARATOR.join(("decay", repr(float(shrink)))), measured))
    return arrays


def measurements_from_arrays(arrays) -> Measurements:
    """The inverse of ``measurements_arrays`` (``KeyError``/``ValueError`` on arrays it did not write)."""
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


def write_measurements(path: str | os.PathLike, measurements: Measurements) -> None:
    """Save ``measurements`` to ``path`` (``.npz``; write it into a staging directory for an atomic save)."""
    with open(path, "wb") as file:
        np.savez(file, **measurements_arrays(measurements))


def read_measurements(path: str | os.PathLike) -> Measurements | None:
    """The measurements saved at ``path``, or None when the file is missing or damaged."""
    try:
        with np.load(path, allow_pickle=False) as arrays:
            return measurements_from_arrays({key: arrays[key] for key in arrays.files})
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        return None
