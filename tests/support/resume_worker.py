"""The other side of ``tests/models/bilm/test_resume_training.py``: a tiny ``train_bilm`` run in its own process,
which can kill
itself with SIGKILL at a chosen moment, as a crash or an out-of-memory kill would.

    python -m tests.support.resume_worker DIRECTORY [--kill-after-step K] [--kill-writing-step K] [--resume]

- ``--kill-after-step K``: SIGKILL right after optimizer step K (after any checkpoint of step K is written).
- ``--kill-writing-step K``: SIGKILL in the middle of writing checkpoint K: half of its bytes are in the temporary
  file, flushed to disk, when the process dies.
- ``--resume``: continue from ``DIRECTORY/checkpoints`` (else a new run writes them there).

The test restarts the last, unkilled run in its own process, from the files alone.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pathlib
import signal

from elmo_keras._quiet import keras
from elmo_keras.models.bilm import checkpoint_files
from elmo_keras.models.bilm.presets import BiLMConfig
from elmo_keras.models.bilm.training import train_bilm

# 18 sentences, batches of 4: 5 steps per epoch (the last batch padded), 15 steps in all; dropout > 0, so the
# dropout seed generators' states must be restored too
CORPUS = [f"the {noun} {verb} by the {place} ." for noun in ("bank", "river", "boat") for verb in ("sat", "stood")
          for place in ("water", "road", "shore")]
CONFIG = BiLMConfig(embedding_dim=8, units=8, num_layers=1, dropout=0.3, epochs=3, batch_size=4,
                    learning_rate=1e-2, training_precision="float32")
CHECKPOINT_EVERY = 2


def train(checkpoint_dir=None, resume=False, callbacks=None):
    """The run every test compares (seed 3)."""
    return train_bilm(CORPUS, size=CONFIG, seed=3, checkpoint_dir=checkpoint_dir, callbacks=callbacks,
                      checkpoint_every=CHECKPOINT_EVERY if checkpoint_dir is not None else None, resume=resume)


class StopAfterStep(keras.callbacks.Callback):
    """Calls ``action()`` right after the global optimizer step ``step`` (counted across ``fit`` calls)."""

    def __init__(self, step: int, action, first_step: int = 0):
        super().__init__()
        self.step, self.action, self.done = int(step), action, int(first_step)

    def on_train_batch_end(self, batch, logs=None):
        self.done += 1
        if self.done == self.step:
            self.action()


def kill_myself() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def die_while_writing(step: int) -> None:
    """Make ``checkpoint_files`` write half of checkpoint ``step``'s archive, flush it, and SIGKILL the process."""
    write_archive = checkpoint_files._write_archive

    def half_then_kill(handle, arrays):
        if int(json.loads(bytes(arrays["meta"]).decode("utf-8"))["step"]) != step:
            return write_archive(handle, arrays)
        whole = io.BytesIO()
        write_archive(whole, arrays)
        handle.write(whole.getvalue()[: len(whole.getvalue()) // 2])
        handle.flush()
        os.fsync(handle.fileno())
        kill_myself()

    checkpoint_files._write_archive = half_then_kill


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", type=pathlib.Path)
    parser.add_argument("--kill-after-step", type=int)
    parser.add_argument("--kill-writing-step", type=int)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args(argv)
    callbacks = []
    if args.kill_after_step is not None:
        callbacks.append(StopAfterStep(args.kill_after_step, kill_myself))
    if args.kill_writing_step is not None:
        die_while_writing(args.kill_writing_step)
    train(args.directory / "checkpoints", resume=args.resume, callbacks=callbacks)


if __name__ == "__main__":
    main()
