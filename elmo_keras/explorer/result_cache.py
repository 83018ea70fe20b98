"""Results the explorer computes from a model, kept on disk beside the models so that a new server process (or a
copy of a shipped model) shows them at once instead of recomputing them.

A result lives in ``<models dir>/.results/<kind>/<key>.json``. The key hashes what the result depends on: the
model's files (their content, so a copy of a model reuses its results and a model saved again does not), the
caller's inputs (corpus fingerprint, seed) and ``FORMAT_VERSION``. Results are JSON (no pickle: a models
directory may be shared, and reading it must never run code); a result that is mostly large arrays may be an
``.npz`` read without pickle (``keep_arrays`` / ``stored_arrays``). A file that cannot be read or parsed is
recomputed and written again; a directory that cannot be written to only costs the recomputation.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import zipfile
from collections.abc import Callable, Mapping
from typing import TypeVar

import numpy as np

from elmo_keras.safe_files import read_json_object, replace_file, write_json_object

T = TypeVar("T")
FORMAT_VERSION = 2  # 2: arrays as dtype, shape and flat values everywhere (array_to_json)
RESULTS_DIR_NAME = ".results"
_MODEL_DIGESTS: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) → content digest, per process


def model_digest(model_dir: str | os.PathLike) -> str:
    """A hash of the files of a model directory (content, not path or time); computed once per file version."""
    digest = hashlib.sha256()
    for path in sorted(pathlib.Path(model_dir).iterdir()):
        if not path.is_file():
            continue
        stat = path.stat()
        marker = (str(path), stat.st_size, stat.st_mtime_ns)
        if marker not in _MODEL_DIGESTS:
            _MODEL_DIGESTS[marker] = hashlib.sha256(path.read_bytes()).hexdigest()
        digest.update(f"{path.name}:{_MODEL_DIGESTS[marker]}\n".encode())
    return digest.hexdigest()


def result_path(models_dir: str | os.PathLike, kind: str, model_dir: str | os.PathLike,
                inputs: Mapping[str, object], suffix: str = ".json") -> pathlib.Path:
    """Where the result of ``kind`` for this model and these inputs is kept (``suffix``: ``.json``, or ``.npz`` for
    a result that is mostly large arrays, see ``stored_arrays``)."""
    key = json.dumps({"model": model_digest(model_dir), "inputs": dict(inputs), "format": FORMAT_VERSION},
                     sort_keys=True, default=str)
    name = hashlib.sha256(key.encode()).hexdigest()[:32]
    return pathlib.Path(models_dir) / RESULTS_DIR_NAME / kind / f"{name}{suffix}"


def _plain(value):
    """A NumPy scalar as the Python value JSON writes (floats keep every digit; NaN is written as NaN)."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (list, tuple, dict, str)) else value


def array_to_json(values) -> dict:
    """A NumPy array as a JSON-ready dict: dtype, shape (kept even where an axis is empty) and flat exact values."""
    values = np.asarray(values)
    return {"dtype": str(values.dtype), "shape": list(values.shape), "values": values.ravel().tolist()}


def array_from_json(data: dict) -> np.ndarray:
    """The array ``array_to_json`` wrote."""
    return np.asarray(data["values"], dtype=data["dtype"]).reshape(data["shape"])


def frame_to_json(frame) -> dict:
    """A pandas ``DataFrame`` as a JSON-ready dict: columns, index and rows of plain values (exact floats)."""
    return {"columns": [_plain(c) for c in frame.columns], "index": [_plain(i) for i in frame.index],
            "data": [[_plain(v) for v in row] for row in frame.itertuples(index=False)]}


def frame_from_json(data: dict, keep_index: bool = False):
    """The ``DataFrame`` ``frame_to_json`` wrote; its index too when ``keep_index`` (else 0…n−1)."""
    import pandas as pd  # here: this module stays importable without pandas' start-up cost until a frame is read

    frame = pd.DataFrame(data["data"], columns=data["columns"])
    if keep_index:
        frame.index = data["index"]
    return frame


def stored_result(path: pathlib.Path, parse: Callable[[dict], T]) -> T | None:
    """``parse`` of the JSON object stored at ``path``; None when there is none, or it cannot be read or parsed
    (``parse`` raising ``KeyError``/``TypeError``/``ValueError``: a file of another shape), so the caller computes
    it again and replaces it."""
    stored = read_json_object(path)
    if stored is None:
        return None
    try:
        return parse(stored)
    except (KeyError, TypeError, ValueError):
        return None


def stored_arrays(path: pathlib.Path) -> dict[str, np.ndarray] | None:
    """The arrays ``keep_arrays`` stored at ``path`` (an ``.npz``, read without pickle), or None when there are
    none or the file cannot be read."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {key: archive[key] for key in archive.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return None


def keep_arrays(path: pathlib.Path, arrays: Mapping[str, np.ndarray]) -> bool:
    """Store ``arrays`` at ``path`` as an ``.npz`` in one rename (``safe_files.replace_file``): for results whose
    bulk is arrays, which JSON would write five times larger. Returns False where nothing can be written (the
    caller only loses a saving)."""
    try:
        replace_file(path, lambda handle: np.savez(handle, **arrays), fsync=False)  # a cache: losing it is cheap
    except OSError:
        return False
    return True


def cached_result(path: pathlib.Path, compute: Callable[[], dict], parse: Callable[[dict], T] = dict) -> T:
    """``parse`` of the JSON object stored at ``path`` (``stored_result``), or of ``compute()``'s (a JSON-ready
    dict), which replaces what was stored there, for next time."""
    stored = stored_result(path, parse)
    if stored is not None:
        return stored
    result = compute()
    write_json_object(path, result)  # where it cannot be kept, the next call computes it again
    return parse(result)
