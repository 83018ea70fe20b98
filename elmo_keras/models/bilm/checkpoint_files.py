"""The checkpoint file: everything a ``train_bilm`` run needs to continue exactly where it stopped, written
atomically and checked on reading (``models.bilm.checkpoints`` writes them during training and resumes from them).

A checkpoint is one file, ``checkpoint-STEP.npz`` (``STEP``: the optimizer steps done, 9 digits), a NumPy zip
archive holding:

- ``model_i``: every model variable in ``model.variables`` order: trainable and non-trainable weights and the
  ``keras.random.SeedGenerator`` states (dropout masks, a sampled softmax's sampler);
- ``optimizer_i``: every optimizer variable (Adam's moments, ``iterations``, the learning rate);
- ``metric_i``: the running epoch metrics (loss and perplexity means), so that a run resumed in the middle of an
  epoch reports that epoch's loss as an uninterrupted run does;
- ``meta``: UTF-8 JSON: the format version, the global step, the history of the finished epochs, the variable
  paths and the run's identity (config without ``epochs``, seed, steps per epoch, and SHA-256 fingerprints of the
  vocabulary and the corpus), which a resumed run must match;
- ``vocabulary``: UTF-8 JSON, ``Vocabulary.to_dict()``;
- ``random_state``: on PyTorch, the global generator's state (``torch.get_rng_state``): Keras's PyTorch dropout
  draws from it when its ``SeedGenerator`` was made without a seed (empty elsewhere).

Writing is atomic (``safe_files.replace_file``): the archive goes to a hidden temporary file in the checkpoint
directory, is flushed and ``fsync``-ed, given a new file's permissions, renamed over its final name with
``os.replace`` and the directory is ``fsync``-ed, so a process killed at any instant (SIGKILL, power loss on a file
system that honours ``fsync``) leaves the previous checkpoints as they were and either no new one or a complete one;
a killed writer's temporary file is removed by the next run. The latest ``KEEP_CHECKPOINTS`` = 2 are kept: if the
newest is later found damaged (a disk error, a file system that lied about ``fsync``, a copy cut short), resuming
falls back to the one before it with a warning, instead of starting over. Every checkpoint is checked on reading,
as a weight file is (zip CRC-32; every array numeric, finite, of the model's names and shapes; the step an int >= 0
matching the file name; the history lists of numbers), and a fault names the file, the array and the problem: a
NaN in a checkpoint is damage (``capture_state`` never writes one), not a diverged run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pathlib
import re
import warnings
import zipfile
from dataclasses import dataclass, field

import numpy as np

from elmo_keras._backend.execution import backend_name
from elmo_keras._backend.rng import global_random_state
from elmo_keras._quiet import keras
from elmo_keras.models.callbacks import TrainingDivergedError
from elmo_keras.models.persistence import first_nonfinite_value
from elmo_keras.safe_files import replace_file
from elmo_keras.text.vocabulary import Vocabulary

CHECKPOINT_FORMAT = 1
KEEP_CHECKPOINTS = 2
CHECKPOINT_NAME = re.compile(r"^checkpoint-(\d{9})\.npz$")
TEMPORARY_PREFIX = ".checkpoint-"
GROUPS = ("model", "optimizer", "metric")
# config fields added after checkpoints were first written, with the value every earlier run had: left out of a run's
# identity at that value, so that a checkpoint written before the field existed still resumes
LATER_CONFIG_FIELDS = {"optimizer": "adam"}


class CheckpointError(ValueError):
    """A checkpoint file is damaged, or belongs to a different run than the one resuming from it."""


@dataclass
class TrainingState:
    """What a checkpoint holds.

    Attributes:
        step: int, optimizer steps done (across epochs).
        values: ``{"model": [...], "optimizer": [...], "metric": [...]}``, NumPy arrays in variable order.
        paths: the same keys, the variables' names (``variable_name``; checked against the model resuming).
        history: ``{"loss": [...], ...}``, one float per finished epoch.
        identity: ``run_identity(...)`` of the run that wrote it.
        vocabulary: the run's ``Vocabulary``.
        random_state: uint8 array, PyTorch's global generator state (``global_random_state``), or None.
    """

    step: int
    values: dict
    paths: dict
    history: dict
    identity: dict
    vocabulary: Vocabulary | None = None
    random_state: np.ndarray | None = None
    path: pathlib.Path | None = field(default=None, compare=False)


def fingerprint(chunks) -> str:
    """SHA-256 (hex) of an iterable of ``str``/``bytes`` chunks, each length-prefixed (so chunk boundaries count)."""
    digest = hashlib.sha256()
    for chunk in chunks:
        data = chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk)
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def run_identity(config: dict, seed: int, vocabulary: Vocabulary, corpus_fingerprint: str,
                 steps_per_epoch: int, strategy: str = "none") -> dict:
    """What must be equal for a run to resume from another's checkpoint: the config (``epochs`` aside: a run may
    be resumed to train longer, since epoch ``e``'s batches depend only on ``[seed, e]``; ``training_precision`` as
    resolved, not ``"auto"``), the seed, the steps per epoch, the vocabulary's (lowercasing included) and the
    corpus's fingerprints, the Keras backend and the distribution ``strategy`` (``"none"``, ``"mirrored"``,
    ``"data-parallel"`` or a strategy class with its replica count): each changes the random streams or the
    arithmetic, so a run resumed with another would not end as the uninterrupted one. A ``LATER_CONFIG_FIELDS``
    field at its earlier value is left out."""
    return {
        "config": {key: value for key, value in config.items()
                   if key != "epochs" and not (key in LATER_CONFIG_FIELDS and value == LATER_CONFIG_FIELDS[key])},
        "seed": int(seed),
        "steps_per_epoch": int(steps_per_epoch),
        "vocabulary": fingerprint([f"lowercase={vocabulary.lowercase}", *vocabulary.tokens]),
        "corpus": corpus_fingerprint,
        "backend": backend_name(),
        "strategy": strategy,
    }


def identity_differences(saved: dict, current: dict) -> list[str]:
    """``["seed: 1 in the checkpoint, 0 now", "config.units: …"]`` for every field of the identity that differs."""
    differences = []
    for key in sorted(set(saved) | set(current)):
        there, here = saved.get(key), current.get(key)
        if isinstance(there, dict) and isinstance(here, dict):  # the config: a field left out has its earlier value
            there, here = {**LATER_CONFIG_FIELDS, **there}, {**LATER_CONFIG_FIELDS, **here}
            differences += [f"config.{name}: {there.get(name)!r} in the checkpoint, {here.get(name)!r} now"
                            for name in sorted(set(there) | set(here)) if there.get(name) != here.get(name)]
        elif there != here:
            shown = {"vocabulary": "the vocabulary differs", "corpus": "the corpus differs"}.get(key)
            differences.append(shown or f"{key}: {there!r} in the checkpoint, {here!r} now")
    return differences


# -- model ⇄ state ---------------------------------------------------------------------------------------------


UNIQUIFYING_SUFFIX = re.compile(r"_\d+(?=/|$)")


def variable_name(variable) -> str:
    """``variable.path`` without the ``_N`` suffixes Keras adds to names already taken in this process
    (``seed_generator_3/seed_generator_state`` → ``seed_generator/seed_generator_state``)."""
    return UNIQUIFYING_SUFFIX.sub("", variable.path)


def _variables(model) -> dict:
    return {"model": list(model.variables), "optimizer": list(model.optimizer.variables),
            "metric": list(model.metrics_variables)}


def capture_state(model, step: int, history: dict, identity: dict, vocabulary: Vocabulary) -> TrainingState:
    """The current state of a compiled ``model`` (on JAX, read through a callback's ``self.model``, which syncs it).

    Raises:
        TrainingDivergedError: a weight holds NaN or inf (such a state is never written).
    """
    variables = _variables(model)
    values = {group: [np.array(keras.ops.convert_to_numpy(v)) for v in vs] for group, vs in variables.items()}
    problem = first_nonfinite_value(variables["model"], values["model"])
    if problem is not None:
        raise TrainingDivergedError(f"the model has {problem} after step {step}: training diverged; lower the "
                                    "learning rate and train again (no checkpoint was written)")
    return TrainingState(
        step=int(step),
        values=values,
        paths={group: [variable_name(v) for v in vs] for group, vs in variables.items()},
        history={key: [float(x) for x in values] for key, values in history.items()},
        identity=identity,
        vocabulary=vocabulary,
        random_state=global_random_state(),
    )


def restore_state(model, state: TrainingState, groups=GROUPS) -> None:
    """Assign ``state``'s values to ``model``'s variables (``groups``: which of model / optimizer / metric).

    Raises:
        CheckpointError: the checkpoint's variables are not this model's (count, path or shape differ).
    """
    variables = _variables(model)
    for group in groups:
        current, saved = variables[group], state.values[group]
        if [variable_name(v) for v in current] != state.paths[group]:
            raise CheckpointError(f"{state.path}: its {group} variables ({len(saved)}) are not this model's "
                                  f"({len(current)}): it was written by another version of the model")
        for variable, value in zip(current, saved):
            if tuple(variable.shape) != value.shape:
                raise CheckpointError(f"{state.path}: {variable.path} has shape {value.shape} in the checkpoint "
                                      f"but {tuple(variable.shape)} in the model")
            variable.assign(value)


# -- files -------------------------------------------------------------------------------------------------------


def checkpoint_path(directory, step: int) -> pathlib.Path:
    return pathlib.Path(directory) / f"checkpoint-{int(step):09d}.npz"


def checkpoint_files(directory) -> list[pathlib.Path]:
    """The checkpoints in ``directory``, newest (highest step) first ([] for a missing directory)."""
    directory = pathlib.Path(directory)
    if not directory.is_dir():
        return []
    found = [(int(m.group(1)), directory / m.group(0)) for m in map(CHECKPOINT_NAME.match, os.listdir(directory)) if m]
    return [path for _, path in sorted(found, reverse=True)]


def _json_bytes(data) -> np.ndarray:
    return np.frombuffer(json.dumps(data).encode("utf-8"), np.uint8)


def write_checkpoint(directory, state: TrainingState, keep: int = KEEP_CHECKPOINTS) -> pathlib.Path:
    """Write ``state`` as ``directory/checkpoint-STEP.npz`` atomically and delete all but the ``keep`` newest.

    Returns:
        The checkpoint's path.
    """
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    arrays = {f"{group}_{i}": value for group in GROUPS for i, value in enumerate(state.values[group])}
    arrays["meta"] = _json_bytes({"format": CHECKPOINT_FORMAT, "step": state.step, "history": state.history,
                                  "identity": state.identity, "paths": state.paths})
    arrays["vocabulary"] = _json_bytes(state.vocabulary.to_dict())
    arrays["random_state"] = np.zeros(0, np.uint8) if state.random_state is None else state.random_state
    target = checkpoint_path(directory, state.step)
    replace_file(target, lambda handle: _write_archive(handle, arrays), prefix=TEMPORARY_PREFIX)
    _fsync_directory(directory)
    for old in checkpoint_files(directory)[keep:]:
        with contextlib.suppress(FileNotFoundError):
            old.unlink()
    return target


def _write_archive(handle, arrays: dict) -> None:
    """``np.savez`` into an open binary file (a separate function, so a test can cut a write short)."""
    np.savez(handle, **arrays)


def _fsync_directory(directory: pathlib.Path) -> None:
    """Make a rename in ``directory`` durable (POSIX; a no-op where a directory cannot be opened)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def remove_temporary_files(directory) -> None:
    """Delete the temporary files of a writer killed mid-write (only one run may use a checkpoint directory)."""
    directory = pathlib.Path(directory)
    if directory.is_dir():
        for path in directory.glob(TEMPORARY_PREFIX + "*.tmp"):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def read_checkpoint(path) -> TrainingState:
    """Read and check one checkpoint file.

    Raises:
        CheckpointError: the file is truncated, corrupted or not a checkpoint: its step is not an int >= 0 (or not
            the one of its name), its history not lists of numbers, an array not numbers or holding a NaN or inf
            (the message names the file, the array and what is wrong).
    """
    path = pathlib.Path(path)
    problem = f"checkpoint {path} is damaged"
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}  # reads every member: checks each CRC-32
        meta = json.loads(bytes(arrays.pop("meta")).decode("utf-8"))
        vocabulary = Vocabulary.from_dict(json.loads(bytes(arrays.pop("vocabulary")).decode("utf-8")), str(path))
        random_state = arrays.pop("random_state")
    except (zipfile.BadZipFile, EOFError, KeyError, OSError, ValueError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{problem} (truncated or corrupted: {error or type(error).__name__}); delete it to "
                              "resume from the previous checkpoint") from None
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not a checkpoint of format {CHECKPOINT_FORMAT}")
    try:
        paths = {group: list(meta["paths"][group]) for group in GROUPS}
        step, history, identity = meta["step"], meta["history"], dict(meta["identity"])
    except (KeyError, TypeError, ValueError) as error:
        raise CheckpointError(f"{problem} (its description is incomplete: {type(error).__name__} {error}); delete it "
                              "to resume from the previous checkpoint") from None
    values = {group: [arrays.pop(f"{group}_{i}", None) for i in range(len(paths[group]))] for group in GROUPS}
    if any(value is None for group in GROUPS for value in values[group]) or arrays:
        raise CheckpointError(f"{problem}: its arrays do not match its variable list; delete it to resume from "
                              "the previous checkpoint")
    fault = _description_fault(path, step, history, paths) or _array_fault(values, paths, random_state)
    if fault is not None:
        raise CheckpointError(f"{problem} ({fault}); delete it to resume from the previous checkpoint")
    return TrainingState(step=step, values=values, paths=paths, history=history, identity=identity,
                         vocabulary=vocabulary, path=path, random_state=random_state if random_state.size else None)


def _description_fault(path: pathlib.Path, step, history, paths: dict) -> str | None:
    """What is wrong with a checkpoint's step, history and variable names (None: nothing)."""
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        return f"its step is {step!r:.60}, not a whole number >= 0"
    named = CHECKPOINT_NAME.match(path.name)
    if named and int(named.group(1)) != step:
        return f"its step {step} is not the step {int(named.group(1))} of its name"
    if not isinstance(history, dict):
        return f"its history is {type(history).__name__}, not a mapping of metric names to per-epoch values"
    for key, entries in history.items():
        if not isinstance(entries, list) or any(isinstance(x, bool) or not isinstance(x, (int, float))
                                                for x in entries):
            return f"its history entry {key!r} is {entries!r:.60}, not a list of numbers (one per finished epoch)"
    for group in GROUPS:
        if not all(isinstance(name, str) for name in paths[group]):
            return f"its {group} variable names are not all strings"
    return None


def _array_fault(values: dict, paths: dict, random_state: np.ndarray) -> str | None:
    """What is wrong with a checkpoint's arrays (None: nothing): not numbers, or a NaN/inf (``capture_state`` never
    writes one, so it is damage, not a diverged run)."""
    for group in GROUPS:
        for index, (name, value) in enumerate(zip(paths[group], values[group])):
            if value.dtype.kind not in "biuf":
                return f"array {group}_{index} ({name!r}) holds {value.dtype} values, not numbers"
            bad = int(value.size - np.count_nonzero(np.isfinite(value))) if value.dtype.kind == "f" else 0
            if bad:
                return f"array {group}_{index} ({name!r}) has {bad} non-finite value(s) (NaN or inf)"
    if random_state.size and (random_state.dtype != np.uint8 or random_state.ndim != 1):
        return f"array random_state holds {random_state.dtype} {random_state.shape}, not a uint8 vector"
    return None


def latest_checkpoint(directory) -> tuple[TrainingState | None, list[str]]:
    """The newest intact checkpoint in ``directory`` and the problems of the newer, damaged ones skipped.

    Returns:
        ``(state, skipped)``: ``state`` None when there is no checkpoint at all.

    Raises:
        CheckpointError: every checkpoint there is damaged (naming each problem).
    """
    skipped = []
    for path in checkpoint_files(directory):
        try:
            state = read_checkpoint(path)
        except CheckpointError as error:
            skipped.append(str(error))
            warnings.warn(f"{error}; resuming from an older checkpoint", stacklevel=2)
            continue
        return state, skipped
    if skipped:
        raise CheckpointError(f"no intact checkpoint in {directory}: {'; '.join(skipped)}; with none intact, delete "
                              "them or choose another checkpoint directory to train from scratch")
    return None, skipped


def check_same_run(state: TrainingState, identity: dict) -> None:
    """Raise if ``state`` was written by a run with another config, seed, vocabulary or corpus.

    Raises:
        CheckpointError: listing every difference and how to proceed.
    """
    differences = identity_differences(state.identity, identity)
    if differences:
        raise CheckpointError(
            f"cannot resume from {state.path}: it belongs to a different run ({'; '.join(differences)}); resume "
            "with the same corpus and settings, or use another checkpoint directory to start a new run"
        )

