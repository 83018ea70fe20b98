"""Checkpointed training: the callbacks that write a checkpoint every N steps and at every epoch end, keep one
random stream across ``fit`` calls and restore a resumed epoch's running metrics, and ``start_checkpointing``,
which finds the checkpoint a run resumes from (the file format: ``models.bilm.checkpoint_files``)."""

from __future__ import annotations

import glob
import os
import pathlib

from elmo_keras._backend.rng import global_random_state, set_global_random_state
from elmo_keras._quiet import keras
from elmo_keras.argument_checks import check_int
from elmo_keras.data.glob_patterns import DIGITS, literal, pattern_could_match
from elmo_keras.models.bilm.checkpoint_files import (
    TEMPORARY_PREFIX,
    CheckpointError,
    TrainingState,
    capture_state,
    check_same_run,
    checkpoint_files,
    latest_checkpoint,
    remove_temporary_files,
    restore_state,
    write_checkpoint,
)

_CHECKPOINT = [*literal("checkpoint-"), *[DIGITS] * 9, *literal(".npz")]
# every name written into a checkpoint directory (glob_patterns templates): checkpoints, damaged ones set aside, and
# safe_files.write_beside's temporary files (tempfile's 8 random characters)
WRITTEN_NAMES = {
    "checkpoint-NNNNNNNNN.npz": _CHECKPOINT,
    "checkpoint-NNNNNNNNN.npz.damaged": [*_CHECKPOINT, *literal(".damaged")],
    f"{TEMPORARY_PREFIX}XXXXXXXX.tmp": [*literal(TEMPORARY_PREFIX),
                                        *[frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")] * 8, *literal(".tmp")],
}


class CheckpointCallback(keras.callbacks.Callback):
    """Writes a checkpoint every ``every`` optimizer steps and at the end of every epoch, and keeps the history.

    Args:
        directory: the checkpoint directory (None: only the history is kept).
        every: int or None, steps between checkpoints inside an epoch (None: only at epoch ends).
        identity: ``run_identity(...)``.
        vocabulary: the run's ``Vocabulary``.
        step: int, the global step the first batch seen here follows (a resumed run's checkpoint step).
        history: the finished epochs' history so far (a resumed run's).
        steps_per_epoch: int.
        writer: bool, whether this process writes the checkpoints it captures (``distribution.writes_checkpoints``:
            False on a non-chief worker of a ``MultiWorkerMirroredStrategy``, which captures them all the same,
            since reading the running metrics is an all-reduce that every worker must join). Defaults to True.
    """

    def __init__(self, directory, every, identity, vocabulary, step=0, history=None, steps_per_epoch=1, writer=True):
        super().__init__()
        self.directory, self.every, self.identity, self.vocabulary = directory, every, identity, vocabulary
        self.writer = bool(writer)
        self.step, self.steps_per_epoch = int(step), int(steps_per_epoch)
        self.history = {key: list(values) for key, values in (history or {}).items()}

    def on_train_batch_end(self, batch, logs=None):
        self.step += 1
        at_epoch_end = self.step % self.steps_per_epoch == 0  # on_epoch_end writes it, with the epoch's logs
        if self.directory is not None and self.every and self.step % self.every == 0 and not at_epoch_end:
            self.write()

    def on_epoch_end(self, epoch, logs=None):
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(float(value))
        if self.directory is not None:
            self.write()

    def write(self) -> None:
        state = capture_state(self.model, self.step, self.history, self.identity, self.vocabulary)  # every worker
        if self.writer:
            write_checkpoint(self.directory, state)


class ContinueGlobalRandomStream(keras.callbacks.Callback):
    """On PyTorch, makes the global random stream continue across ``fit`` calls and resumptions as if the run were
    one uninterrupted ``fit``: each ``fit`` call draws from it when it starts its data iterator (PyTorch's
    ``DataLoader``), so at the first batch of every call the state after the previous step is put back (the
    checkpoint's, for a resumed run's first call). A no-op on the other backends.

    Args:
        state: the ``TrainingState`` resumed from, or None.
    """

    def __init__(self, state: TrainingState | None = None):
        super().__init__()
        self.after_last_step = state.random_state if state is not None else None
        self.pending = None

    def on_train_begin(self, logs=None):
        self.pending = self.after_last_step

    def on_train_batch_begin(self, batch, logs=None):
        if self.pending is not None:
            set_global_random_state(self.pending)
            self.pending = None

    def on_train_batch_end(self, batch, logs=None):
        self.after_last_step = global_random_state()


class RestoreEpochMetrics(keras.callbacks.Callback):
    """At the start of the first epoch (after ``fit`` resets the metrics) put back a resumed epoch's running
    metrics, so that its logged loss and perplexities cover the whole epoch, as in an uninterrupted run."""

    def __init__(self, state: TrainingState):
        super().__init__()
        self.state = state

    def on_epoch_begin(self, epoch, logs=None):
        if self.state is not None:
            restore_state(self.model, self.state, groups=("metric",))
            self.state = None


def check_checkpoint_arguments(directory, every, resume, corpus=None) -> None:
    """``every`` a positive int or None; ``every`` and ``resume`` only with a checkpoint directory, which the
    ``corpus`` files or glob cannot reach (``refuse_checkpoints_in_corpus``).

    Raises:
        ValueError: naming the argument and the value received.
    """
    check_int(every, "checkpoint_every", allow_none=True)  # optimizer steps
    if directory is None and (every is not None or resume):
        raise ValueError("checkpoint_every and resume need a checkpoint_dir (where checkpoints are written and read)")
    if directory is not None and pathlib.Path(directory).exists() and not pathlib.Path(directory).is_dir():
        raise ValueError(f"checkpoint_dir {directory} is an existing file, not a directory")
    refuse_checkpoints_in_corpus(directory, corpus)


def refuse_checkpoints_in_corpus(directory, corpus, option: str = "checkpoint_dir") -> None:
    """Raise if the corpus could ever name a file written in the checkpoint ``directory`` (``WRITTEN_NAMES``): a
    resumed run would expand the glob again and read its own checkpoints as corpus (``data.glob_patterns``).

    Args:
        directory: the checkpoint directory (None: nothing to check).
        corpus: a corpus path or glob (str or ``os.PathLike``), or a list of ``os.PathLike``, as ``train_bilm``
            and ``train --corpus`` take them; sentences (lists of str or of tokens) name no file.
        option: how the message names the directory's setting (``"--checkpoint-dir"`` in the CLI).

    Raises:
        ValueError: naming the setting, the directory, the pattern, the file names it could match, and the fix.
    """
    if directory is None or corpus is None:
        return
    if isinstance(corpus, (str, os.PathLike)):
        patterns = [corpus]
    elif isinstance(corpus, (list, tuple)):
        patterns = [item for item in corpus if isinstance(item, os.PathLike)]
    else:
        return
    for pattern in patterns:
        matched = [name for name, template in WRITTEN_NAMES.items()
                   if pattern_could_match(pattern, directory, [template])]
        if matched:
            kind = "glob" if glob.has_magic(os.fspath(pattern)) else "file"
            raise ValueError(f"{option} {directory}: the corpus {kind} {os.fspath(pattern)!r} could match the "
                             f"{' and '.join(matched)} files written there, so a resumed run would read its own "
                             "checkpoints as corpus; choose a checkpoint directory outside the corpus's folder (or a "
                             "narrower pattern, e.g. '*.txt')")


def prepare_checkpoint_directory(directory) -> None:
    """Create ``directory`` (and its parents) and check that checkpoints can be written there, before training.

    Raises:
        ValueError: it cannot be created (a parent is a file, no permission) or is not writable, saying which.
    """
    path = pathlib.Path(directory)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot create checkpoint_dir {directory}: {error.strerror or error}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write checkpoints in {directory}: no permission to write there; choose another "
                         "checkpoint directory")


def start_checkpointing(directory, resume: bool, identity: dict, total_steps: int, writer: bool = True):
    """Prepare ``directory`` for a run and find the state it resumes from.

    Args:
        directory: the checkpoint directory.
        resume: bool, continue from its newest intact checkpoint (if any).
        identity: the run's ``run_identity``.
        total_steps: int, the run's ``epochs × steps_per_epoch``.
        writer: bool, whether this process writes the run's checkpoints. A reader (a non-chief worker of a
            ``MultiWorkerMirroredStrategy``) only reads the writer's directory, which must be the same on every
            worker (a shared path): it creates, cleans and renames nothing there, so that it never races the
            writer. Defaults to True.

    Returns:
        ``(state, report)``: the state to restore (None: start from scratch) and what the training summary
        records: ``{"resumed_from": path or None, "resumed_step": int, "skipped_checkpoints": [...], "note": str}``.

    Raises:
        CheckpointError: the checkpoint belongs to another run, every checkpoint is damaged, or (without
            ``resume``) the directory already holds checkpoints, which a new run would mix with its own.
        ValueError: the checkpoint is past the run's last step (ask for more epochs).
    """
    if writer:
        prepare_checkpoint_directory(directory)
        remove_temporary_files(directory)
    if not resume:
        existing = checkpoint_files(directory)
        if existing:
            raise CheckpointError(f"checkpoint_dir {directory} already holds {existing[0].name}: resume from it "
                                  "(resume=True, --resume) or choose an empty directory for a new run")
        return None, {"resumed_from": None, "resumed_step": 0, "note": "new run"}
    state, skipped = latest_checkpoint(directory)
    if state is None:
        return None, {"resumed_from": None, "resumed_step": 0, "skipped_checkpoints": skipped,
                      "note": f"no checkpoint in {directory}: trained from scratch"}
    check_same_run(state, identity)
    if state.step > total_steps:
        raise ValueError(f"{state.path} is at step {state.step}, past the {total_steps} steps of this run; ask for "
                         "more epochs to continue it")
    note = f"resumed from {state.path.name} (step {state.step})"
    if skipped:
        note += f", skipping {len(skipped)} damaged newer checkpoint(s), kept as *.npz.damaged"
    if skipped and writer:  # newest first: set aside, so that pruning keeps intact ones (a reader leaves them)
        for damaged in checkpoint_files(directory):
            if damaged == state.path:
                break
            os.replace(damaged, damaged.with_name(damaged.name + ".damaged"))
    return state, {"resumed_from": str(state.path), "resumed_step": state.step, "skipped_checkpoints": skipped,
                   "note": note}
